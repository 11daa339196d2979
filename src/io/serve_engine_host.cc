#include "serve_engine_host.h"

namespace dlsim::io::internal {

std::optional<serve::EngineHost> ReadEngineHost(const MapReader& m, const serve::EngineHost& profile) {
  if (!m.present()) return std::nullopt;
  serve::EngineHost h = profile;
  const Range kMs = Range::Between(0, 10'000);
  h.step = Millis(m.Get<double>("step_ms", h.step.ToMillis(), kMs));
  h.per_request = Micros(m.Get<double>("per_request_us", h.per_request.ToMicros(), Range::Between(0, 1e7)));
  h.first_token = Millis(m.Get<double>("first_token_ms", h.first_token.ToMillis(), kMs));
  h.async_output = m.Get<bool>("async_output", h.async_output);
  h.scheduler_steps = m.Get<int>("scheduler_steps", h.scheduler_steps, Range::Between(1, 1024));
  m.Finish();
  return h;
}

}  // namespace dlsim::io::internal
