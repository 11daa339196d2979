// CaliEX's memory split for disk-based training: how much of a host-memory budget goes to adjacency
// lists (the topology cache) and how much to node features (the host feature cache). Internal to
// the gnn module; docs/gnn.md ("Disk-based training").
//
// From one pre-sampled epoch (reads per node, epoch.h) the split is priced in closed form for every
// share on a grid: the topology cache holds the lists with the most reads per byte that fit, the
// feature cache the rows with the most reads (both static, as the "frequency" policies build them),
// and the pages still read from the disk are summed. Only the disk stage of the pipeline depends on
// the split here (sampling and gathering CPU work and compute do not), so the share with the fewest
// predicted pages is the one with the shortest pipelined disk stage — CaliEX's auto-tuning target.
#ifndef DLSIM_SRC_GNN_MEMORY_SPLIT_H_
#define DLSIM_SRC_GNN_MEMORY_SPLIT_H_

#include <vector>

#include "dlsim/gnn/graph.h"
#include "epoch.h"

namespace dlsim::gnn::internal {

struct SplitPoint {
  double share = 0;            // of the budget, to adjacency lists
  double predicted_pages = 0;  // disk pages of the pre-sampled epoch
};

struct SplitPlan {
  double share = 0;  // the chosen point (fewest pages; ties to the smaller share)
  std::vector<SplitPoint> curve;
};

// `steps` + 1 shares 0, 1/steps, ..., 1. Preconditions: budget_bytes >= 0, row_bytes > 0, steps >= 1.
SplitPlan ChooseTopologyShare(const Graph& g, const Presample& p, double budget_bytes, double row_bytes,
                              int steps = 20);

}  // namespace dlsim::gnn::internal

#endif  // DLSIM_SRC_GNN_MEMORY_SPLIT_H_
