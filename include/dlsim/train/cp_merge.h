// The memory traffic of PyTorch's experimental context parallelism (parallel.cp_impl: pytorch), read off
// torch/distributed/tensor/experimental/_attention.py as it stood in late 2024 (the ring torchtitan's
// December 2024 benchmarks ran: flash or memory-efficient SDPA only, _cp_options convert_to_f32 True,
// enable_load_balance True, rotate_method ALL_GATHER; docs/training-model.md "Context parallelism").
//
// Per attention call on a cp rank, in bytes per local token, with q the query width and kv the key (= value)
// width SDPA sees (H_q x head_dim and H_kv x head_dim on this TP rank; torchtitan repeats K/V to the query
// heads before SDPA, so kv = q there). The slowest rank is the last (rank cp - 1): its cp - 1 later steps all
// take the whole query against the first half of the received K/V, so it merges full-size outputs every step.
//   forward:  K and V made contiguous, read and written in bf16             8 kv
//             per step before the last, torch.cat of K and V into one buffer  8 kv (cp - 1)
//             the first step's output cast to fp32, the result cast back     12 q
//             per later step: the block's output cast to fp32 (2 + 4), then out - block_out (8 + 4),
//             sigmoid(...) * that (4 + 4), out - that (8 + 4)                  38 q (cp - 1)
//   backward: dQ, dK, dV zero-filled in fp32                                 4 q + 8 kv
//             K and V made contiguous                                        8 kv
//             per step before the last, the K/V torch.cat                     8 kv (cp - 1)
//             first step: dK += and dV += their bf16 block gradients (4 + 2 read, 4 written) 20 kv
//             per later step: the first half of dK and dV accumulated (5 kv each), then each rebuilt
//             whole by torch.cat (_partial_update: 8 kv each)               26 kv (cp - 1)
//             every step: dK and dV concatenated in fp32 to send on          16 kv cp
//             every step: dQ += the block's dQ                               10 q cp
//             the end: dQ and the received dK/dV cast back to bf16           6 q + 12 kv
// The lse tensors (one float per head and token) are left out. The K/V all-gather and the fp32 dK/dV ring
// are communication (train/layer_comm.h), not counted here.
#ifndef DLSIM_TRAIN_CP_MERGE_H_
#define DLSIM_TRAIN_CP_MERGE_H_

namespace dlsim::train {

struct CpMergeBytes {
  double fwd = 0, bwd = 0;  // bytes per local token of one attention call's forward and backward
};

// The table above for a ring of `cp` ranks (cp <= 1: none).
CpMergeBytes CpMergeBytesPerToken(int cp, double q_width, double kv_width);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_CP_MERGE_H_
