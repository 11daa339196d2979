// Requests of a serving simulation and their generation from a workload description.
//
//   auto reqs = serve::GenerateRequests(options.workload);   // Result<std::vector<Request>>
//
// Generation is deterministic: arrivals and lengths use named sub-streams of the workload
// seed ("serve/arrivals", "serve/prompt", "serve/output"), so changing the length
// distribution does not move the arrival times. Stateless; thread-safe.
#ifndef DLSIM_SERVE_REQUEST_H_
#define DLSIM_SERVE_REQUEST_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/rng.h"
#include "dlsim/core/units.h"
#include "dlsim/serve/options.h"

namespace dlsim::serve {

// One request: its shape, then its progress (owned and updated by the simulator).
struct Request {
  TimePoint arrival;
  int32_t prompt = 0;  // prompt tokens
  int32_t output = 0;  // tokens to generate (>= 1); the first comes from the prefill
  // Its prompt's prefix chunks (prefix caching): a shared-prefix group (>= 0), or its trace entry's chunk ids
  // (WorkloadOptions::prefix_hashes from prefix_first, prefix_chunks of them).
  int32_t prefix_group = -1;
  int32_t prefix_first = 0;
  int32_t prefix_chunks = 0;
  // Progress.
  int32_t prefill_target = 0;  // tokens the next prefill must process (prompt, + generated after a recompute)
  int32_t prefilled = 0;       // tokens of the current prefill done
  int32_t kv_tokens = 0;       // tokens whose KV is in the cache
  int32_t generated = 0;       // output tokens produced
  double spec_credit = 0;      // speculative decoding: expected tokens accrued and not yet emitted
  bool held = false;           // multi-step: has tokens of the current run not yet streamed (Replica::held)
  int32_t blocks = 0;          // KV blocks held on the GPU, shared prefix chunks included
  int32_t shared_blocks = 0;   // of which in prefix-cache chunks (owned by the cache, serve/prefix_cache.h)
  int32_t pinned_chunks = 0;   // its first prefix chunks, pinned in the prefix cache
  int32_t cached_tokens = 0;   // prompt tokens its prefills found in the prefix cache (not computed)
  int32_t replica = -1;        // replica it is queued on or runs on (-1 once done or handed off)
  int32_t finished_on = -1;    // replica it completed on
  int32_t preemptions = 0;
  bool swapped = false;    // KV swapped out to host memory
  bool scheduled = false;  // has been in a batch at least once
  bool done = false;
  TimePoint first_scheduled;
  TimePoint first_token;
  TimePoint last_token;  // when its latest output token came out
  Duration max_itl;      // its longest gap between two consecutive output tokens
  TimePoint finish;

  bool prefill_done() const { return prefilled >= prefill_target; }
  // Tokens still to process: remaining prefill plus remaining decode steps.
  int64_t remaining_tokens() const { return (prefill_target - prefilled) + (output - generated); }
};

// Samples one length from `d`, clamped to [d.min, d.max] before rounding (a nan, inf or huge draw
// becomes d.min or d.max, never an undefined conversion).
int64_t SampleLength(const LengthDistribution& d, Rng& rng);

// The workload's requests sorted by arrival. Error (kInvalidArgument) when the workload asks for no
// requests (requests == 0 and duration_s == 0, an empty trace, or no arrival within duration_s), a
// non-positive rate, or breaks a limit of options.h: more than kMaxRequests requests (also arriving
// within duration_s), a length clamp or a trace entry's tokens beyond 1..kMaxTokens, an arrival past
// kMaxArrivalSeconds, more than kMaxDecodeSteps output tokens in all; a shared prefix out of range or with a
// trace's own prefix chunks, a trace entry's chunks outside WorkloadOptions::prefix_hashes. With a shared
// prefix each request draws its group from the stream "serve/prefix".
Result<std::vector<Request>> GenerateRequests(const WorkloadOptions& w);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_REQUEST_H_
