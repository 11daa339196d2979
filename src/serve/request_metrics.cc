#include "request_metrics.h"

#include <algorithm>

namespace dlsim::serve::internal {
namespace {

// The completed requests' latencies (seconds, in request order) and counts.
struct Completed {
  std::vector<double> ttft, tpot, e2e, queueing;
  int64_t requests = 0, tokens = 0, good = 0;  // completed, output tokens, meeting both SLOs
  TimePoint last;                              // the last completion
};

Completed CollectCompleted(const std::vector<Request>& reqs, Duration first_token, const SloOptions& slo) {
  Completed c;
  c.ttft.reserve(reqs.size());
  c.tpot.reserve(reqs.size());
  c.e2e.reserve(reqs.size());
  c.queueing.reserve(reqs.size());
  for (const RequestRecord& r : RequestRecords(reqs, first_token, slo)) {
    if (!r.completed) continue;
    ++c.requests;
    c.tokens += r.output_tokens;
    c.last = std::max(c.last, reqs[r.id].finish + first_token);
    c.ttft.push_back(r.ttft_s);
    if (r.output_tokens > 1) c.tpot.push_back(r.tpot_s);
    c.e2e.push_back(r.e2e_s);
    c.queueing.push_back(r.queueing_s);
    c.good += r.met_slo;
  }
  return c;
}

}  // namespace

std::vector<RequestRecord> RequestRecords(const std::vector<Request>& reqs, Duration first_token,
                                          const SloOptions& slo) {
  std::vector<RequestRecord> out;
  out.reserve(reqs.size());
  const TimePoint start;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Request& r = reqs[i];
    RequestRecord rec{.id = static_cast<int64_t>(i),
                      .replica = r.finished_on,
                      .prompt_tokens = r.prompt,
                      .output_tokens = r.output};
    rec.arrival_s = (r.arrival - start).ToSeconds();
    rec.preemptions = r.preemptions;
    rec.cached_tokens = r.cached_tokens;
    rec.completed = r.done;
    if (r.done) {
      rec.first_scheduled_s = (r.first_scheduled - start).ToSeconds();
      const TimePoint first = r.first_token + first_token, finish = r.finish + first_token;
      rec.first_token_s = (first - start).ToSeconds();
      rec.finish_s = (finish - start).ToSeconds();
      rec.ttft_s = (first - r.arrival).ToSeconds();
      rec.tpot_s = r.output > 1 ? (finish - first).ToSeconds() / (r.output - 1) : 0.0;
      rec.itl_max_s = r.max_itl.ToSeconds();
      rec.e2e_s = (finish - r.arrival).ToSeconds();
      rec.queueing_s = (r.first_scheduled - r.arrival).ToSeconds();
      rec.met_slo = rec.ttft_s <= slo.ttft_s && (r.output <= 1 || rec.tpot_s <= slo.tpot_s);
    }
    out.push_back(rec);
  }
  return out;
}

void AddRequestMetrics(const std::vector<Request>& reqs, Duration first_token, const SloOptions& slo,
                       const LogHistogram& itl, ServeMetrics& m) {
  Completed c = CollectCompleted(reqs, first_token, slo);  // Summarize sorts its input
  m.requests_completed = c.requests;
  m.ttft_s = Summarize(c.ttft);
  m.tpot_requests = static_cast<int64_t>(c.tpot.size());
  m.tpot_s = Summarize(c.tpot);
  m.itl_s = itl.Summary();
  m.itl_gaps = itl.count();
  m.e2e_s = Summarize(c.e2e);
  m.queueing_s = Summarize(c.queueing);
  if (!reqs.empty()) {
    m.makespan_s = (c.last - reqs.front().arrival).ToSeconds();
    m.arrival_span_s = (reqs.back().arrival - reqs.front().arrival).ToSeconds();
  }
  if (m.makespan_s > 0) {
    m.throughput_tokens_per_s = static_cast<double>(c.tokens) / m.makespan_s;
    m.throughput_requests_per_s = static_cast<double>(m.requests_completed) / m.makespan_s;
    m.goodput_requests_per_s = static_cast<double>(c.good) / m.makespan_s;
  }
  m.slo_attainment =
      m.requests_total > 0 ? static_cast<double>(c.good) / static_cast<double>(m.requests_total) : 0;
}

}  // namespace dlsim::serve::internal
