// The serving engine's CPU time (docs/serving.md, "Engine CPU time"): what a real engine spends on the host
// around every GPU step — scheduling and input preparation, then output processing (sampling sync,
// detokenisation, output objects) per running request — and the fixed first-token path (API server,
// tokenisation, the first streamed chunk). Each engine profile carries measured values
// (data/serving/engine_host.csv, with sources); `engine_host:` in a scenario overrides them.
//
//   EngineHost h = profile.host;
//   bool pays = h.PaysStep(decode_only, &replica_run_left);   // multi-step: once per run of steps
//   Duration wall = h.StepWall(gpu_time, running_requests, pays, decode_only);
#ifndef DLSIM_SERVE_ENGINE_HOST_H_
#define DLSIM_SERVE_ENGINE_HOST_H_

#include <cstdint>
#include <optional>

#include "dlsim/core/units.h"

namespace dlsim::serve {

struct EngineHost {
  // Scheduler and input preparation, once per scheduler call; the GPU waits for it unless async_scheduling.
  Duration step;
  // Output processing per request in the step. With async_output it runs while the GPU computes the next
  // step (vLLM 0.6's asynchronous output processor), so only what exceeds that step's GPU time shows.
  Duration per_request;
  bool async_output = false;
  // With async_output, a step's outputs reach the client when the next step ends (vLLM 0.6's AsyncLLMEngine:
  // step N's outputs are processed during step N+1 and returned with it), the first token included; at once
  // when the replica has no request left to run. No effect without async_output.
  bool async_output_lags = false;
  // Asynchronous scheduling (vLLM's AsyncScheduler, PR #19970; on by default from v0.14): the scheduler runs
  // one step ahead, so the step's CPU work (scheduling and the previous step's output processing) overlaps
  // its GPU work and only what exceeds it shows: wall = max(GPU, step + output).
  bool async_scheduling = false;
  // The serving path per request per streamed chunk (vLLM's AsyncLLMEngine putting each output on its
  // request's stream and the frontend's share of the engine process): paid on the engine's own loop, so
  // neither async_output nor async_scheduling hides it; a multi-step run streams once, for all its tokens.
  // 0 for a run without the API server (an offline LLMEngine) and for engines whose frontend has its own
  // process.
  Duration stream;
  // Added to every request's first-token and finish times (not to the gaps between its tokens): the API
  // server, tokenisation and the first streamed chunk.
  Duration first_token;
  // Multi-step scheduling (vLLM --num-scheduler-steps): a decode-only step runs this many times per
  // scheduler call, so `step` is paid on the first of each run, and the run's tokens stream together when it
  // ends (one chunk per request). 1 = every step pays and streams.
  int scheduler_steps = 1;

  bool any() const {
    return step > Duration() || per_request > Duration() || stream > Duration() || first_token > Duration() ||
           scheduler_steps > 1;
  }
  // Whether this step pays `step`: every step that prefills does; a decode-only step pays on the first
  // of each run of `scheduler_steps`. `run_left` is the replica's count of unpaid steps left in its run.
  bool PaysStep(bool decode_only, int* run_left) const;
  // The wall time of a step whose GPU work takes `gpu`, with `requests` requests in the batch. A decode-only
  // step under multi-step carries 1 / scheduler_steps of the output processing and of the streaming: the
  // engine processes and streams a run's outputs once, for all its tokens (RFC #6854: multi-step amortises
  // "all these overheads").
  Duration StepWall(Duration gpu, int64_t requests, bool pays_step, bool decode_only) const;
};

// The `engine_host:` keys a scenario gave (serve/options.h): each laid over the profile's (and a calibration
// file's) value; unset keys keep them.
struct EngineHostKeys {
  std::optional<Duration> step, per_request, stream, first_token;
  std::optional<bool> async_output, async_scheduling;
  std::optional<int> scheduler_steps;
};
// `base` with every key `keys` sets replaced.
EngineHost WithKeys(EngineHost base, const EngineHostKeys& keys);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_ENGINE_HOST_H_
