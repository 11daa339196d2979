// Helios: event-driven pre-sampling, subscriptions and local K-hop assembly (online_serving.h).
#include <algorithm>
#include <bit>
#include <limits>
#include <queue>
#include <utility>

#include "online_common.h"

namespace dlsim::gnn {
namespace {

using internal::Query;
using internal::ToNs;

// Work arriving at serving workers at one time: a sample pushed to the workers in `workers` (a
// bit each), or a query (one bit).
struct Item {
  int64_t t = 0;
  uint64_t seq = 0;
  uint64_t workers = 0;
  bool query = false;
  bool timed = false;  // a push whose staleness is recorded
  int64_t ref = 0;     // the query's index, or the edge's arrival (staleness)
  int64_t cost = 0;    // ns of service at each worker
};
struct Later {
  bool operator()(const Item& a, const Item& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
};

class HeliosState {
 public:
  HeliosState(int64_t nodes, const OnlineOptions& o, SampleStore& store, size_t queries, size_t edges)
      : stride_(std::max<size_t>(1, edges / kTimedEdges)),
        o_(o),
        store_(store),
        rng_(Rng(o.seed).Stream("samples")),
        subs_(nodes),
        sfree_(o.workers, 0),
        serve_free_(o.workers, 0),
        done_(queries, 0),
        lat_ns_(ToNs(o.network_latency_us * 1e3)) {}

  // Items due by `now` are served (no later event can arrive before them).
  void Drain(int64_t now) {
    while (!pending_.empty() && pending_.top().t <= now) {
      const Item it = pending_.top();
      pending_.pop();
      for (uint64_t bits = it.workers; bits != 0; bits &= bits - 1) {
        int64_t& free = serve_free_[std::countr_zero(bits)];
        free = std::max(free, it.t) + it.cost;
        if (it.query) done_[it.ref] = free;
        if (it.timed) staleness_ms_.push_back(static_cast<double>(free - it.ref) * 1e-6);
      }
    }
  }

  void Edge(const StreamEdge& e, size_t index) {
    timed_ = index % stride_ == 0;
    Apply(e.v, e.u, e.t_ns);
    Apply(e.u, e.v, e.t_ns);
  }

  void Ask(const Query& q, size_t index, OnlineResult& r) {
    std::vector<NodeId> answer;
    const int64_t lookups = Assemble(q.seed, o_.record_answers ? &answer : nullptr);
    if (o_.record_answers) r.answers.push_back(std::move(answer));
    Push(Bit(Owner(q.seed)), q.t_ns, true, static_cast<int64_t>(index), lookups * ToNs(o_.lookup_ns));
  }

  void Finish(OnlineResult& r) {
    Drain(std::numeric_limits<int64_t>::max());
    r.staleness_ms = Summarize(staleness_ms_);
    r.messages = messages_;
    r.store_bytes = store_.Bytes();
    for (size_t x = 0; x < subs_.size(); ++x) {
      const double row = 4.0 * static_cast<double>(store_.Sample(static_cast<NodeId>(x)).size());
      r.cache_bytes += row * static_cast<double>(1 + subs_[x].size());  // the owner and the subscribers
    }
  }
  const std::vector<int64_t>& done() const { return done_; }

 private:
  int Owner(NodeId v) const { return static_cast<int>(v % static_cast<NodeId>(o_.workers)); }
  static uint64_t Bit(int worker) { return uint64_t{1} << worker; }

  void Push(uint64_t workers, int64_t t, bool query, int64_t ref, int64_t cost) {
    pending_.push({t, seq_++, workers, query, timed_ && !query, ref, cost});
  }
  void Send(uint64_t workers, int64_t sent, int64_t origin) {
    messages_ += std::popcount(workers);
    Push(workers, sent + lat_ns_, false, origin, ToNs(o_.push_ns));
  }

  // The owner of x's seed needs y's sample for a second hop (counted per reason).
  void Subscribe(NodeId y, int w, int64_t at, int64_t origin) {
    if (Owner(y) == w) return;  // the owner gets y's samples anyway
    for (auto& [worker, count] : subs_[y]) {
      if (worker == w) {
        ++count;
        return;
      }
    }
    subs_[y].emplace_back(w, 1);
    Send(Bit(w), at, origin);  // the current sample of y, once
  }
  void Unsubscribe(NodeId y, int w) {
    auto& s = subs_[y];
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i].first == w && --s[i].second == 0) s.erase(s.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  // y arrives as a neighbour of x at t: the sampling worker of x updates, then pushes.
  void Apply(NodeId x, NodeId y, int64_t t) {
    int64_t& free = sfree_[Owner(x)];
    free = std::max(free, t) + ToNs(o_.insert_ns);
    const SampleChange c = store_.Insert(x, y, rng_);
    if (!c.changed) return;
    const int w = Owner(x);
    if (o_.fanouts.size() > 1) {
      Subscribe(y, w, free, t);
      if (c.evicted) Unsubscribe(*c.evicted, w);
    }
    uint64_t to = Bit(w);
    for (const auto& [worker, count] : subs_[x]) to |= Bit(worker);
    Send(to, free, t);  // one arrival time for all of them
  }

  // The hops from the seed over the samples; the samples read. The answer (when asked for) is the
  // sorted distinct vertices reached.
  int64_t Assemble(NodeId seed, std::vector<NodeId>* answer) const {
    std::vector<NodeId> frontier{seed}, next;
    int64_t lookups = 0;
    for (int f : o_.fanouts) {
      next.clear();
      for (NodeId x : frontier) {
        ++lookups;
        const auto s = store_.Sample(x);
        next.insert(next.end(), s.begin(),
                    s.begin() + std::min<ptrdiff_t>(f, static_cast<ptrdiff_t>(s.size())));
      }
      if (answer != nullptr) answer->insert(answer->end(), next.begin(), next.end());
      frontier.swap(next);
    }
    if (answer == nullptr) return lookups;
    std::sort(answer->begin(), answer->end());
    answer->erase(std::unique(answer->begin(), answer->end()), answer->end());
    return lookups;
  }

  static constexpr size_t kTimedEdges = 250000;  // staleness is recorded for about this many edges
  size_t stride_ = 1;
  bool timed_ = true;
  const OnlineOptions& o_;
  SampleStore& store_;
  Rng rng_;
  std::vector<std::vector<std::pair<int32_t, int32_t>>> subs_;  // vertex -> (serving worker, reasons)
  std::vector<int64_t> sfree_, serve_free_, done_;
  std::priority_queue<Item, std::vector<Item>, Later> pending_;
  std::vector<double> staleness_ms_;
  int64_t lat_ns_ = 0, messages_ = 0;
  uint64_t seq_ = 0;
};

class Helios final : public OnlineServing {
 public:
  Result<OnlineResult> Run(int64_t nodes, const std::vector<StreamEdge>& stream, const OnlineOptions& o,
                           const SampleStoreRegistry& stores) const override {
    DLSIM_RETURN_IF_ERROR(internal::CheckOnlineOptions(nodes, o, 2));
    const int k = o.sample_size > 0 ? o.sample_size : *std::max_element(o.fanouts.begin(), o.fanouts.end());
    DLSIM_ASSIGN_OR_RETURN(auto store, stores.Create(o.sampler, nodes, k));
    const std::vector<Query> queries = internal::MakeQueries(nodes, stream, o);
    if (o.workers > 64) return Error::InvalidArgument("online serving: helios: workers must be 1..64");
    HeliosState run(nodes, o, *store, queries.size(), stream.size());
    OnlineResult r;
    size_t i = 0, j = 0;
    while (i < stream.size() || j < queries.size()) {
      if (j == queries.size() || (i < stream.size() && stream[i].t_ns <= queries[j].t_ns)) {
        run.Drain(stream[i].t_ns);
        run.Edge(stream[i], i);
        ++i;
      } else {
        run.Drain(queries[j].t_ns);
        run.Ask(queries[j], j, r);
        ++j;
      }
    }
    run.Finish(r);
    internal::SummarizeQueries(queries, run.done(), o, r);
    return r;
  }
};

}  // namespace

std::unique_ptr<OnlineServing> MakeHeliosServing() { return std::make_unique<Helios>(); }

}  // namespace dlsim::gnn
