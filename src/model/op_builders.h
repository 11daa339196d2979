// Constructors of the operators of model/layer_graph.h, shared by the language-model and the DiT
// builders (internal to src/model).
#ifndef DLSIM_SRC_MODEL_OP_BUILDERS_H_
#define DLSIM_SRC_MODEL_OP_BUILDERS_H_

#include <string>
#include <utility>

#include "dlsim/model/layer_graph.h"

namespace dlsim::model::internal {

inline Op Gemm(std::string name, Shard shard, int64_t n, int64_t k, double saved) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::kGemm;
  op.shard = shard;
  op.n = n;
  op.k = k;
  op.saved_bytes_per_token = saved;
  return op;
}

inline Op Memory(std::string name, Shard shard, double bytes, double flops, double saved,
                 Access access = Access::kElementwise) {
  Op op;
  op.access = access;
  op.name = std::move(name);
  op.kind = OpKind::kMemory;
  op.shard = shard;
  op.bytes_per_token = bytes;
  op.flops_per_token = flops;
  op.saved_bytes_per_token = saved;
  return op;
}

}  // namespace dlsim::model::internal

#endif  // DLSIM_SRC_MODEL_OP_BUILDERS_H_
