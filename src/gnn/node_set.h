// Sets of node ids. NodeSet: O(1) insert and membership, cleared in O(1) by bumping a generation
// stamp. O(num_nodes) memory; for the samplers' frontiers. Not thread-safe.
#ifndef DLSIM_SRC_GNN_NODE_SET_H_
#define DLSIM_SRC_GNN_NODE_SET_H_

#include <algorithm>
#include <cstdint>
#include <span>
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
  // Starts loading v's stamp into the cache (the sets are larger than the caches on big graphs).
  void Prefetch(NodeId v) const { __builtin_prefetch(&stamp_[v]); }

 private:
  std::vector<uint32_t> stamp_;
  uint32_t generation_ = 1;
};

// The same set as one bit per node (num_nodes / 8 bytes: a scale-22 graph's set is 512 KiB and stays
// in the caches), cleared by erasing its known members. For the samplers' frontier.
class NodeBits {
 public:
  explicit NodeBits(int64_t num_nodes) : words_(static_cast<size_t>((num_nodes + 63) / 64), 0) {}
  bool Insert(NodeId v) {
    uint64_t& w = words_[v >> 6];
    const uint64_t bit = uint64_t{1} << (v & 63);
    if (w & bit) return false;
    w |= bit;
    return true;
  }
  bool Contains(NodeId v) const { return (words_[v >> 6] >> (v & 63)) & 1; }
  void Prefetch(NodeId v) const { __builtin_prefetch(&words_[v >> 6]); }
  // Removes `members` (which must hold every node in the set to empty it).
  void Erase(std::span<const NodeId> members) {
    for (NodeId v : members) words_[v >> 6] &= ~(uint64_t{1} << (v & 63));
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace dlsim::gnn::internal

#endif  // DLSIM_SRC_GNN_NODE_SET_H_
