#include "dlsim/serve/request.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "dlsim/core/rng.h"
#include "dlsim/core/strings.h"

namespace dlsim::serve {

int64_t SampleLength(const LengthDistribution& d, Rng& rng) {
  const double lo = static_cast<double>(d.min), hi = static_cast<double>(std::max(d.min, d.max));
  double x = 0;
  switch (d.kind) {
    case LengthDistribution::Kind::kLognormal:
      x = SampleLognormal(rng, std::log(std::max(d.median, 1e-9)), d.sigma);
      break;
    case LengthDistribution::Kind::kFixed:
      x = d.value;
      break;
    case LengthDistribution::Kind::kUniform: {
      // Bounds clamped first: a span beyond 2^64 (high 1e300) must not reach the integer draw.
      const double low = std::clamp(d.low, lo, hi), high = std::clamp(d.high, low, hi);
      x = low + static_cast<double>(rng.NextBelow(static_cast<uint64_t>(high - low) + 1));
      break;
    }
    case LengthDistribution::Kind::kEmpirical:
      x = d.values.empty() ? 1.0 : d.values[rng.NextBelow(d.values.size())];
      break;
  }
  // Clamped before rounding: llround of nan, inf or 1e300 is undefined (it gave LLONG_MIN, so 1 token).
  if (!(x >= lo)) return d.min;
  return x >= hi ? std::max(d.min, d.max) : std::llround(x);
}

namespace {

// Seconds until the next arrival.
double NextGap(const WorkloadOptions& w, Rng& rng) {
  if (w.rate == 0 && w.concurrency > 0) return 0;  // a closed loop's requests, all ready at once
  if (w.arrival == ArrivalKind::kGamma) {
    const double shape = 1.0 / (w.cv * w.cv);
    return SampleGamma(rng, shape, 1.0 / (w.rate * shape));
  }
  return SampleExponential(rng, w.rate);
}

// Precondition: 1 <= prompt, output <= kMaxTokens (GenerateRequests checks them; the clamp only keeps a
// broken caller from wrapping the 32-bit counters: a 3e9-token prompt became a negative one).
Request MakeRequest(double arrival_s, int64_t prompt, int64_t output) {
  Request r;
  r.arrival = TimePoint::Start() + Seconds(arrival_s);
  r.prompt = static_cast<int32_t>(std::clamp<int64_t>(prompt, 1, kMaxTokens));
  r.output = static_cast<int32_t>(std::clamp<int64_t>(output, 1, kMaxTokens));
  r.prefill_target = r.prompt;
  return r;
}

std::string Num(double v) { return FormatNumber(v, 6); }

// The limits of serve/options.h, for options built by hand (the scenario reader checks them first).
Status CheckLimits(const WorkloadOptions& w) {
  if (w.requests > kMaxRequests)
    return Error::InvalidArgument("workload.requests: " + std::to_string(w.requests) + " requests; at most " +
                                  std::to_string(kMaxRequests) + " (a memory limit: split the run)");
  for (const LengthDistribution* d : {&w.prompt, &w.output}) {
    if (d->min < 1 || d->max > kMaxTokens || d->max < d->min)
      return Error::InvalidArgument("workload: a length clamp of " + std::to_string(d->min) + ".." +
                                    std::to_string(d->max) + " tokens; allowed: 1.." +
                                    std::to_string(kMaxTokens));
  }
  if (w.concurrency < 0 || w.concurrency > kMaxRequests)
    return Error::InvalidArgument("workload.concurrency: " + std::to_string(w.concurrency) +
                                  "; allowed: 0.." + std::to_string(kMaxRequests));
  if (w.arrival == ArrivalKind::kTrace && w.trace_arrivals) return Status::Ok();
  if (w.rate == 0 && w.concurrency > 0) {  // all ready at once, sent as slots free: a count, not a duration
    if (w.requests <= 0 && w.arrival != ArrivalKind::kTrace)
      return Error::InvalidArgument(
          "workload: with concurrency and no rate give requests (all are ready at once)");
    return Status::Ok();
  }
  if (!(w.rate > 0) || !std::isfinite(w.rate)) return Error::InvalidArgument("workload.rate: must be > 0");
  if (w.arrival == ArrivalKind::kGamma && !(w.cv > 0 && w.cv <= 1e6))
    return Error::InvalidArgument("workload.cv: must be > 0 and finite, found " + Num(w.cv));
  return Status::Ok();
}

// Trace entry `index`'s token counts; an error when one is outside 1..kMaxTokens.
Status CheckTraceTokens(const TraceEntry& e, size_t index) {
  for (int64_t tokens : {e.prompt_tokens, e.output_tokens}) {
    if (tokens >= 1 && tokens <= kMaxTokens) continue;
    return Error::InvalidArgument("workload: trace request " + std::to_string(index + 1) + " has " +
                                  std::to_string(tokens) + " prompt or output tokens; allowed: 1.." +
                                  std::to_string(kMaxTokens) + " (token counters are 32-bit)");
  }
  return Status::Ok();
}

// Arrival `t` (seconds) of request `index`; an error when it is past what the clock is allowed to hold.
Status CheckArrival(double t, size_t index, const WorkloadOptions& w) {
  if (t >= 0 && t <= kMaxArrivalSeconds) return Status::Ok();
  return Error::InvalidArgument("workload: request " + std::to_string(index + 1) + " arrives at " + Num(t) +
                                " s; arrivals must lie in 0.." + Num(kMaxArrivalSeconds) +
                                " s (about 3.2 years): raise rate (" + Num(w.rate) +
                                " req/s) or give fewer requests");
}

Result<std::vector<Request>> TraceRequests(const WorkloadOptions& w) {
  if (w.trace.empty()) return Error::InvalidArgument("workload: the trace has no requests");
  const size_t n = w.requests > 0 ? std::min<size_t>(w.requests, w.trace.size()) : w.trace.size();
  if (n > static_cast<size_t>(kMaxRequests))
    return Error::InvalidArgument("workload: the trace has " + std::to_string(n) + " requests; at most " +
                                  std::to_string(kMaxRequests) + ": split the trace");
  std::vector<Request> out;
  out.reserve(n);
  Rng arrivals = Rng(w.seed).Stream("serve/arrivals");  // a trace without arrival times (ShareGPT)
  double t = 0;
  for (size_t i = 0; i < n; ++i) {
    const TraceEntry& e = w.trace[i];
    const double at = w.trace_arrivals ? e.arrival_s : (t += NextGap(w, arrivals));
    DLSIM_RETURN_IF_ERROR(CheckArrival(at, i, w));
    DLSIM_RETURN_IF_ERROR(CheckTraceTokens(e, i));
    if (w.duration_s > 0 && at > w.duration_s) continue;  // (a trace need not be sorted)
    out.push_back(MakeRequest(at, e.prompt_tokens, e.output_tokens));
    out.back().prefix_first = e.prefix_first;
    out.back().prefix_chunks = e.prefix_chunks;
  }
  if (out.empty()) {
    double first = w.trace[0].arrival_s;
    for (size_t i = 0; i < n; ++i) first = std::min(first, w.trace[i].arrival_s);
    return Error::InvalidArgument("workload: no request of the trace arrives within duration_s " +
                                  Num(w.duration_s) + " s (the first at " + Num(first) +
                                  " s): lengthen duration_s or leave it out");
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
  return out;
}

// The requests of a poisson or gamma workload, lengths sampled from its distributions.
Result<std::vector<Request>> SampledRequests(const WorkloadOptions& w) {
  if (w.requests <= 0 && !(w.duration_s > 0)) {
    return Error::InvalidArgument("workload: give requests or duration_s");
  }
  Rng root(w.seed);
  Rng arrivals = root.Stream("serve/arrivals");
  Rng prompts = root.Stream("serve/prompt");
  Rng outputs = root.Stream("serve/output");
  std::vector<Request> out;
  if (w.requests > 0) out.reserve(static_cast<size_t>(w.requests));
  double t = 0;
  while (true) {
    t += NextGap(w, arrivals);
    if (w.requests > 0 ? static_cast<int64_t>(out.size()) >= w.requests : t > w.duration_s) break;
    DLSIM_RETURN_IF_ERROR(CheckArrival(t, out.size(), w));
    if (static_cast<int64_t>(out.size()) >= kMaxRequests)
      return Error::InvalidArgument("workload: more than " + std::to_string(kMaxRequests) +
                                    " requests arrive within duration_s " + Num(w.duration_s) + " s at " +
                                    Num(w.rate) + " req/s (a memory limit): shorten duration_s");
    out.push_back(MakeRequest(t, SampleLength(w.prompt, prompts), SampleLength(w.output, outputs)));
  }
  if (out.empty())
    return Error::InvalidArgument("workload: no request arrives within duration_s " + Num(w.duration_s) +
                                  " s at " + Num(w.rate) + " req/s (about " + Num(w.rate * w.duration_s) +
                                  " expected): lengthen duration_s or give requests");
  return out;
}

// Every output token is one decode step of one request: their total bounds the simulation's work.
Status CheckWork(const std::vector<Request>& requests) {
  int64_t steps = 0;
  for (const Request& r : requests) steps += r.output;
  if (steps <= kMaxDecodeSteps) return Status::Ok();
  return Error::InvalidArgument(
      "workload: the " + std::to_string(requests.size()) + " requests generate " + std::to_string(steps) +
      " output tokens in all; at most " + std::to_string(kMaxDecodeSteps) +
      " per run (a time limit: each is a decode step to simulate, about 4e7 a second): give fewer "
      "requests or shorter outputs (workload.requests, output_tokens)");
}

// The prefix options: a shared prefix of 1..kMaxTokens tokens over 1..kMaxPrefixGroups groups, not with a
// trace's own chunk ids; every trace entry's ids within prefix_hashes.
Status CheckPrefixes(const WorkloadOptions& w) {
  const SharedPrefix& p = w.shared_prefix;
  if (p.tokens < 0 || p.tokens > kMaxTokens || p.groups < 1 || p.groups > kMaxPrefixGroups)
    return Error::InvalidArgument("workload.shared_prefix: " + std::to_string(p.tokens) + " tokens in " +
                                  std::to_string(p.groups) + " groups; allowed: 0.." +
                                  std::to_string(kMaxTokens) + " tokens, 1.." +
                                  std::to_string(kMaxPrefixGroups) + " groups");
  if (w.prefix_block_tokens < 0 || w.prefix_block_tokens > kMaxTokens)
    return Error::InvalidArgument("workload.prefix_block_tokens: " + std::to_string(w.prefix_block_tokens) +
                                  "; allowed: 0.." + std::to_string(kMaxTokens));
  if (p.tokens > 0 && !w.prefix_hashes.empty())
    return Error::InvalidArgument("workload.shared_prefix: the trace gives its own prefix chunks (hash_ids)");
  for (size_t i = 0; i < w.trace.size(); ++i) {
    const TraceEntry& e = w.trace[i];
    if (e.prefix_first < 0 || e.prefix_chunks < 0 ||
        static_cast<size_t>(e.prefix_first) + static_cast<size_t>(e.prefix_chunks) > w.prefix_hashes.size())
      return Error::InvalidArgument("workload: trace request " + std::to_string(i + 1) +
                                    "'s prefix chunks lie outside the prefix table");
  }
  return Status::Ok();
}

// Draws each request's shared-prefix group (in arrival order, from its own stream: the arrivals and lengths
// do not move).
void DrawPrefixGroups(const WorkloadOptions& w, std::vector<Request>& requests) {
  if (w.shared_prefix.tokens <= 0) return;
  Rng groups = Rng(w.seed).Stream("serve/prefix");
  for (Request& r : requests)
    r.prefix_group = static_cast<int32_t>(groups.NextBelow(static_cast<uint64_t>(w.shared_prefix.groups)));
}

}  // namespace

Result<std::vector<Request>> GenerateRequests(const WorkloadOptions& w) {
  DLSIM_RETURN_IF_ERROR(CheckLimits(w));
  DLSIM_RETURN_IF_ERROR(CheckPrefixes(w));
  DLSIM_ASSIGN_OR_RETURN(std::vector<Request> requests,
                         w.arrival == ArrivalKind::kTrace ? TraceRequests(w) : SampledRequests(w));
  DLSIM_RETURN_IF_ERROR(CheckWork(requests));
  DrawPrefixGroups(w, requests);
  return requests;
}

}  // namespace dlsim::serve
