// The engine's state of capacity loaning (cluster/capacity.h; engine code in loaning.cc): which nodes
// belong to the lendable pool and which are lent to training, when the pool last changed its demand,
// and the reclaim statistics the result reports. A mechanism of the cluster, used with any policy (the
// policy only chooses which lent nodes to give back: ReclaimRules). Private to the module.
#ifndef DLSIM_SRC_CLUSTER_LOAN_BOOK_H_
#define DLSIM_SRC_CLUSTER_LOAN_BOOK_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/units.h"

namespace dlsim::cluster {

struct LoanBook {
  std::vector<char> in_pool;  // by node
  std::vector<int> lent;      // pool nodes lent to training, in lending order
  int max_lendable = 0;
  bool idle_at_max = false;
  int64_t starts = 0, starts_at_max = 0;  // job starts, and their count when idle_at_max was set
  // No further demand change will be applied (capacity.h): rounds stop once nothing runs.
  bool capacity_frozen = false;
  TimePoint progress_check_at;
  double progress_mark = -1;
  struct CapacityStep {
    TimePoint from;
    int64_t online_gpus = 0;    // GPUs training may use from `from` on
    double inference_gpus = 0;  // GPUs the pool's demand uses
  };
  std::vector<CapacityStep> capacity_steps;
  int64_t reclaimed_nodes = 0, reclaim_preemptions = 0, reclaim_shrinks = 0;
  double reclaim_lost_gpu_s = 0;
};

}  // namespace dlsim::cluster

#endif  // DLSIM_SRC_CLUSTER_LOAN_BOOK_H_
