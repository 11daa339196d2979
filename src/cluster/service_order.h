// The running jobs of a least-attained-service policy in rank order, kept incrementally (private
// to the module; the engine's incremental preemptive pass, service_pass.cc, docs/cluster.md
// "Cost").
//
// A running job's key is its attained GPU-seconds A + g (now - since) (progress.h AttainedAt; g
// its held GPUs). Its base A - g x since does not change while it runs, so running jobs that hold
// the same GPUs keep their relative order as time passes: ServiceOrder keeps one ordered set per
// held-GPU class, O(log R) per start or stop. ServiceTail walks the running jobs from the
// worst-ranked one at an instant (merging the classes, O(classes) per job visited) and answers
// the two questions of the pass: how much the jobs ranked after a key demand, and which job a
// deficit of capacity preempts.
//
// Floating point: the engine ranks by the computed key, whose rounding may order two jobs with
// nearly equal bases otherwise than their bases do. The tail therefore takes, from a class's end,
// each run of jobs whose bases lie within kBaseTolerance (relative; ~500 times the rounding error
// of a key and a base together) of each other and orders that run by the computed keys: the walk's
// order is exactly that of sorting every running job by `key` (tests/cluster/service_pass_test.cc
// `IncrementalLasPassEqualsTheFullPass`).
//
// Not thread-safe; a ServiceTail borrows its ServiceOrder and must not outlive a change to it.
#ifndef DLSIM_SRC_CLUSTER_SERVICE_ORDER_H_
#define DLSIM_SRC_CLUSTER_SERVICE_ORDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {

// How the engine ranks jobs: (policy key, arrival ns, id, job index), lower first.
using RankKey = std::tuple<Priority, int64_t, int64_t, int>;

inline constexpr double kBaseTolerance = 1e-12;

class ServiceOrder {
 public:
  // Jobs are indices 0..jobs-1.
  explicit ServiceOrder(size_t jobs) : where_(jobs) {}
  // Job j starts running: held_milli its held milli-GPUs, base = attained - held GPUs x start s.
  // Precondition: j is not in the order.
  void Add(int j, int64_t held_milli, double base, int64_t arrival_ns, int64_t id);
  // Job j stops running. Precondition: j is in the order.
  void Remove(int j);

 private:
  friend class ServiceTail;
  struct Entry {
    double base = 0;
    int64_t arrival_ns = 0, id = 0;
    int job = 0;
    auto operator<=>(const Entry&) const = default;
  };
  std::map<int64_t, std::set<Entry>> classes_;    // held milli-GPUs -> running jobs by base
  std::vector<std::pair<int64_t, Entry>> where_;  // by job: its class and entry while running
};

// The running jobs of a ServiceOrder at one instant, from the worst-ranked, with the sums of
// their demands (milli-GPUs), extended lazily as the questions need.
class ServiceTail {
 public:
  using KeyFn = std::function<RankKey(int)>;   // the engine's rank key of a running job now
  using NeedFn = std::function<int64_t(int)>;  // its demand in milli-GPUs (> 0)
  ServiceTail(const ServiceOrder& order, double now_s, KeyFn key, NeedFn need);

  // The total demand of the running jobs ranked after `x`; when that is at least `cap`, any
  // value >= cap (so the walk stops early).
  int64_t DemandAfter(const RankKey& x, int64_t cap);
  // The best-ranked running job whose later-ranked running jobs demand less than `deficit` (> 0)
  // in total: the next one a greedy pass that is `deficit` short preempts. Its key and demand.
  // Precondition: all running jobs demand at least `deficit`.
  std::pair<RankKey, int64_t> Preempted(int64_t deficit);

 private:
  struct Cursor {
    std::set<ServiceOrder::Entry>::const_reverse_iterator at, end;
    double gpus = 0;
    std::vector<RankKey> run;  // the run being taken, ascending (taken from the back)
  };
  void Refill(Cursor& c);
  bool Extend();  // appends the next worst-ranked job; false when none is left

  double now_s_;
  KeyFn key_;
  NeedFn need_;
  std::vector<Cursor> cursors_;
  std::vector<RankKey> keys_;  // visited jobs, descending
  std::vector<int64_t> cum_;   // cum_[k]: demand of the k worst-ranked jobs
};

}  // namespace dlsim::cluster

#endif  // DLSIM_SRC_CLUSTER_SERVICE_ORDER_H_
