// Graph-database on-demand sampling: the baseline of online GNN inference (online_serving.h).
#include <algorithm>
#include <functional>

#include "dlsim/core/event_queue.h"
#include "online_common.h"

namespace dlsim::gnn {
namespace {

using internal::Query;
using internal::ToNs;

struct QueryState {
  std::vector<NodeId> frontier, next, answer;
  size_t hop = 0;
  int pending = 0;
  int64_t latest = 0;
};

class OnDemandState {
 public:
  OnDemandState(int64_t nodes, const OnlineOptions& o, const std::vector<StreamEdge>& stream,
                const std::vector<Query>& queries)
      : o_(o),
        stream_(stream),
        queries_(queries),
        adj_(nodes),
        free_(o.workers, 0),
        q_(queries.size()),
        done_(queries.size(), 0),
        rng_(Rng(o.seed).Stream("on-demand")),
        lat_(ToNs(o.network_latency_us * 1e3)) {}

  void Simulate() {
    if (!stream_.empty()) events_.Schedule(At(stream_[0].t_ns), [this] { NextEdge(); });
    events_.Schedule(At(queries_[0].t_ns), [this] { NextQuery(); });
    events_.Run();
  }
  const std::vector<int64_t>& done() const { return done_; }
  int64_t messages() const { return messages_; }
  std::vector<NodeId>& answer(size_t q) { return q_[q].answer; }
  double Bytes() const {
    double b = 0;
    for (const auto& a : adj_) b += 4.0 * static_cast<double>(a.size());
    return b;
  }

 private:
  static TimePoint At(int64_t ns) { return TimePoint::FromNanos(ns); }
  int64_t Now() const { return events_.Now().ToNanos(); }
  int Owner(NodeId v) const { return static_cast<int>(v % static_cast<NodeId>(o_.workers)); }

  void Insert(NodeId x, NodeId y, int64_t t) {
    adj_[x].push_back(y);
    int64_t& f = free_[Owner(x)];
    f = std::max(f, t) + ToNs(o_.insert_ns);
  }
  void NextEdge() {
    const StreamEdge& e = stream_[edge_];
    Insert(e.u, e.v, e.t_ns);
    Insert(e.v, e.u, e.t_ns);
    if (++edge_ < stream_.size()) events_.Schedule(At(stream_[edge_].t_ns), [this] { NextEdge(); });
  }
  void NextQuery() {
    const size_t q = query_;
    q_[q].frontier = {queries_[q].seed};
    StartHop(q);
    if (++query_ < queries_.size()) events_.Schedule(At(queries_[query_].t_ns), [this] { NextQuery(); });
  }

  // One request per owner of the frontier's vertices.
  void StartHop(size_t q) {
    QueryState& s = q_[q];
    std::vector<std::vector<NodeId>> by_owner(o_.workers);
    for (NodeId x : s.frontier) by_owner[Owner(x)].push_back(x);
    s.next.clear();
    s.pending = 0;
    for (int w = 0; w < o_.workers; ++w) {
      if (by_owner[w].empty()) continue;
      ++s.pending;
      messages_ += 2;
      events_.ScheduleAfter(Duration::Nanos(lat_),
                            [this, q, w, v = std::move(by_owner[w])] { Serve(q, w, v); });
    }
    if (s.pending == 0) Complete(q, Now());  // the last hop sampled nothing: nothing left to ask
  }

  void Complete(size_t q, int64_t at) {
    QueryState& s = q_[q];
    done_[q] = at;
    if (!o_.record_answers) return;
    std::sort(s.answer.begin(), s.answer.end());
    s.answer.erase(std::unique(s.answer.begin(), s.answer.end()), s.answer.end());
  }

  // The owner scans and samples each vertex of the request, FIFO behind its earlier work.
  void Serve(size_t q, int w, const std::vector<NodeId>& vertices) {
    QueryState& s = q_[q];
    const int f = o_.fanouts[s.hop];
    double work = o_.request_ns;
    for (NodeId x : vertices) {
      const auto deg = static_cast<int64_t>(adj_[x].size());
      work += static_cast<double>(deg) * o_.scan_ns_per_edge +
              static_cast<double>(std::min<int64_t>(f, deg)) * o_.sample_ns;
      Sample(x, f, s.next);
    }
    int64_t& free = free_[w];
    free = std::max(free, Now()) + ToNs(work);
    s.latest = std::max(s.latest, free + lat_);
    if (--s.pending > 0) return;
    if (o_.record_answers) s.answer.insert(s.answer.end(), s.next.begin(), s.next.end());
    if (++s.hop == o_.fanouts.size()) return Complete(q, s.latest);
    s.frontier.swap(s.next);
    events_.Schedule(At(s.latest), [this, q] { StartHop(q); });
  }

  // min(f, degree) distinct neighbours, uniform (Floyd's algorithm).
  void Sample(NodeId x, int f, std::vector<NodeId>& out) {
    const auto& a = adj_[x];
    const auto d = static_cast<int64_t>(a.size());
    if (d <= f) {
      out.insert(out.end(), a.begin(), a.end());
      return;
    }
    picked_.clear();
    for (int64_t j = d - f; j < d; ++j) {
      const auto t = static_cast<int64_t>(rng_.NextBelow(static_cast<uint64_t>(j + 1)));
      picked_.push_back(std::find(picked_.begin(), picked_.end(), t) == picked_.end() ? t : j);
    }
    for (int64_t i : picked_) out.push_back(a[i]);
  }

  const OnlineOptions& o_;
  const std::vector<StreamEdge>& stream_;
  const std::vector<Query>& queries_;
  std::vector<std::vector<NodeId>> adj_;
  std::vector<int64_t> free_;
  std::vector<QueryState> q_;
  std::vector<int64_t> done_;
  std::vector<int64_t> picked_;
  Rng rng_;
  EventQueue events_;
  int64_t lat_ = 0, messages_ = 0;
  size_t edge_ = 0, query_ = 0;
};

class OnDemand final : public OnlineServing {
 public:
  Result<OnlineResult> Run(int64_t nodes, const std::vector<StreamEdge>& stream, const OnlineOptions& o,
                           const SampleStoreRegistry&) const override {
    DLSIM_RETURN_IF_ERROR(internal::CheckOnlineOptions(nodes, o, 0));
    const std::vector<Query> queries = internal::MakeQueries(nodes, stream, o);
    OnDemandState state(nodes, o, stream, queries);
    state.Simulate();
    OnlineResult r;
    internal::SummarizeQueries(queries, state.done(), o, r);
    r.messages = state.messages();
    r.store_bytes = state.Bytes();
    if (o.record_answers) {
      for (size_t q = 0; q < queries.size(); ++q) r.answers.push_back(std::move(state.answer(q)));
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<OnlineServing> MakeOnDemandServing() { return std::make_unique<OnDemand>(); }

}  // namespace dlsim::gnn
