// Pipeline orders for micro-batches with dependent chains: ChunkFlow's state-aware 1F1B.
//
// A chain is a run of consecutive micro-batches (the chunks of one long document) whose forward
// passes run in order and whose backward passes run in reverse order: a chunk's backward needs the
// gradients of its prefix K/V, which the later chunks' backward passes produce. On each pipeline
// rank the order is 1F1B (warm-up, steady one-forward-one-backward, cool-down) over the backward
// sequence, with extra forwards before a backward whose micro-batch has not run forward yet, so a
// chain's first backward waits for its last chunk's forward.
//
//   std::vector<int> back = ChainBackwardOrder({-1, 0, 0, 0, -1});  // {0, 3, 2, 1, 4}
//   auto order = ChainAwareOrder({.stages = 4, .chunks = 1, .micro_batches = 5}, back, false);
//
// Pure functions; thread-safe.
#ifndef DLSIM_TRAIN_CHAIN_ORDER_H_
#define DLSIM_TRAIN_CHAIN_ORDER_H_

#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/train/pipeline_schedule.h"

namespace dlsim::train {

// The backward sequence of micro-batches 0..n-1 given each one's chain id (-1: none): in order,
// with each run of consecutive micro-batches of one chain reversed.
std::vector<int> ChainBackwardOrder(const std::vector<int>& chain_of);

// Per-rank orders: forwards in micro-batch order; before its k-th backward (micro-batch
// backward[k]) rank r has run max(k + 1 + warm-up, backward[k] + 1) forwards (at most m), the
// warm-up being min(stages - 1 - r, m) (1F1B) or m (all_forward_first: GPipe). Deadlock-free:
// each rank runs at least as many forwards before a backward as the rank after it.
// Errors (kInvalidArgument): shape.chunks != 1 (interleaved schedules with chains are not
// modelled), `backward` not a permutation of 0..micro_batches-1.
Result<PipeOrder> ChainAwareOrder(const PipeShape& shape, const std::vector<int>& backward,
                                  bool all_forward_first);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_CHAIN_ORDER_H_
