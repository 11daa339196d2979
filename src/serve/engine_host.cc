#include "dlsim/serve/engine_host.h"

#include <algorithm>

namespace dlsim::serve {

bool EngineHost::PaysStep(bool decode_only, int* run_left) const {
  if (!decode_only || scheduler_steps <= 1) {
    *run_left = 0;
    return true;
  }
  if (*run_left > 0) {
    --*run_left;
    return false;
  }
  *run_left = scheduler_steps - 1;
  return true;
}

Duration EngineHost::StepWall(Duration gpu, int64_t requests, bool pays_step, bool decode_only) const {
  // Per-request work for the whole batch; a multi-step decode step carries 1 / scheduler_steps of it.
  const int64_t n = std::max<int64_t>(0, requests), share = decode_only ? std::max(1, scheduler_steps) : 1;
  const Duration output = Duration::Nanos((per_request * n).ToNanos() / share),
                 streamed = Duration::Nanos((stream * n).ToNanos() / share);
  if (async_scheduling) return std::max(gpu, (pays_step ? step : Duration()) + output) + streamed;
  Duration wall = gpu + (async_output ? std::max(Duration(), output - gpu) : output) + streamed;
  if (pays_step) wall += step;
  return wall;
}

EngineHost WithKeys(EngineHost base, const EngineHostKeys& keys) {
  if (keys.step) base.step = *keys.step;
  if (keys.per_request) base.per_request = *keys.per_request;
  if (keys.stream) base.stream = *keys.stream;
  if (keys.first_token) base.first_token = *keys.first_token;
  if (keys.async_output) base.async_output = *keys.async_output;
  if (keys.async_scheduling) base.async_scheduling = *keys.async_scheduling;
  if (keys.scheduler_steps) base.scheduler_steps = *keys.scheduler_steps;
  return base;
}

}  // namespace dlsim::serve
