#include "serve_engine_host.h"

namespace dlsim::io::internal {

serve::EngineHostKeys ReadEngineHost(const MapReader& m) {
  serve::EngineHostKeys k;
  if (!m.present()) return k;
  const Range kMs = Range::Between(0, 10'000);
  if (m.Has("step_ms")) k.step = Millis(m.Get<double>("step_ms", 0, kMs));
  if (m.Has("per_request_us"))
    k.per_request = Micros(m.Get<double>("per_request_us", 0, Range::Between(0, 1e7)));
  if (m.Has("stream_us")) k.stream = Micros(m.Get<double>("stream_us", 0, Range::Between(0, 1e7)));
  if (m.Has("first_token_ms")) k.first_token = Millis(m.Get<double>("first_token_ms", 0, kMs));
  if (m.Has("async_output")) k.async_output = m.Get<bool>("async_output", false);
  if (m.Has("async_scheduling")) k.async_scheduling = m.Get<bool>("async_scheduling", false);
  if (m.Has("scheduler_steps")) k.scheduler_steps = m.Get<int>("scheduler_steps", 1, Range::Between(1, 1024));
  m.Finish();
  return k;
}

}  // namespace dlsim::io::internal
