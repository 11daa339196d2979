#include "dlsim/serve/request.h"

#include <algorithm>
#include <cmath>

#include "dlsim/core/rng.h"

namespace dlsim::serve {

int64_t SampleLength(const LengthDistribution& d, Rng& rng) {
  double x = 0;
  switch (d.kind) {
    case LengthDistribution::Kind::kLognormal:
      x = SampleLognormal(rng, std::log(std::max(d.median, 1e-9)), d.sigma);
      break;
    case LengthDistribution::Kind::kFixed:
      x = d.value;
      break;
    case LengthDistribution::Kind::kUniform:
      x = d.low + static_cast<double>(rng.NextBelow(static_cast<uint64_t>(d.high - d.low) + 1));
      break;
    case LengthDistribution::Kind::kEmpirical:
      x = d.values.empty() ? 1.0 : d.values[rng.NextBelow(d.values.size())];
      break;
  }
  return std::clamp<int64_t>(std::llround(x), d.min, d.max);
}

namespace {

// Seconds until the next arrival.
double NextGap(const WorkloadOptions& w, Rng& rng) {
  if (w.arrival == ArrivalKind::kGamma) {
    const double shape = 1.0 / (w.cv * w.cv);
    return SampleGamma(rng, shape, 1.0 / (w.rate * shape));
  }
  return SampleExponential(rng, w.rate);
}

Request MakeRequest(double arrival_s, int64_t prompt, int64_t output) {
  Request r;
  r.arrival = TimePoint::Start() + Seconds(arrival_s);
  r.prompt = static_cast<int32_t>(std::max<int64_t>(prompt, 1));
  r.output = static_cast<int32_t>(std::max<int64_t>(output, 1));
  r.prefill_target = r.prompt;
  return r;
}

}  // namespace

Result<std::vector<Request>> GenerateRequests(const WorkloadOptions& w) {
  std::vector<Request> out;
  if (w.arrival == ArrivalKind::kTrace) {
    if (w.trace.empty()) return Error::InvalidArgument("workload: the trace has no requests");
    const size_t n = w.requests > 0 ? std::min<size_t>(w.requests, w.trace.size()) : w.trace.size();
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const TraceEntry& e = w.trace[i];
      if (w.duration_s > 0 && e.arrival_s > w.duration_s) break;
      out.push_back(MakeRequest(e.arrival_s, e.prompt_tokens, e.output_tokens));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
    return out;
  }
  if (!(w.rate > 0)) return Error::InvalidArgument("workload.rate: must be > 0");
  if (w.requests <= 0 && !(w.duration_s > 0)) {
    return Error::InvalidArgument("workload: give requests or duration_s");
  }
  Rng root(w.seed);
  Rng arrivals = root.Stream("serve/arrivals");
  Rng prompts = root.Stream("serve/prompt");
  Rng outputs = root.Stream("serve/output");
  if (w.requests > 0) out.reserve(static_cast<size_t>(w.requests));
  double t = 0;
  while (true) {
    t += NextGap(w, arrivals);
    if (w.requests > 0 ? static_cast<int64_t>(out.size()) >= w.requests : t > w.duration_s) break;
    out.push_back(MakeRequest(t, SampleLength(w.prompt, prompts), SampleLength(w.output, outputs)));
  }
  return out;
}

}  // namespace dlsim::serve
