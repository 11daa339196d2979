// A set of node ids with O(1) insert and membership, cleared in O(1) by bumping a generation
// stamp. O(num_nodes) memory; for the samplers' frontiers. Not thread-safe.
#ifndef DLSIM_SRC_GNN_NODE_SET_H_
#define DLSIM_SRC_GNN_NODE_SET_H_

#include <cstdint>
#include <vector>

#include "dlsim/gnn/graph.h"

namespace dlsim::gnn::internal {

class NodeSet {
 public:
  explicit NodeSet(int64_t num_nodes) : stamp_(static_cast<size_t>(num_nodes), 0) {}
  void Clear() {
    if (++generation_ != 0) return;
    std::fill(stamp_.begin(), stamp_.end(), 0);  // the stamp wrapped: start again
    generation_ = 1;
  }
  // True when v was not in the set (and is now).
  bool Insert(NodeId v) {
    if (stamp_[v] == generation_) return false;
    stamp_[v] = generation_;
    return true;
  }
  bool Contains(NodeId v) const { return stamp_[v] == generation_; }

 private:
  std::vector<uint32_t> stamp_;
  uint32_t generation_ = 1;
};

}  // namespace dlsim::gnn::internal

#endif  // DLSIM_SRC_GNN_NODE_SET_H_
