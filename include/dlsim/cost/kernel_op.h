// One GPU operator as a user lists it for `dlsim kernels` (a GEMM, an attention forward,
// backward or both, a memory-bound kernel), and its price under a ComputeModel. The CSV reader is
// io/kernel_ops_csv.h; the command is app/kernels_command.h (docs/cost-model.md, "Pricing any kernel").
//
//   KernelOp op{.kind = KernelOpKind::kGemm, .gemm = {.m = 4096, .n = 4096, .k = 4096}};
//   Duration t = PriceKernelOp(*model, op);
#ifndef DLSIM_COST_KERNEL_OP_H_
#define DLSIM_COST_KERNEL_OP_H_

#include <optional>
#include <string>
#include <string_view>

#include "dlsim/core/units.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::cost {

// kAttentionForwardBackward: one forward and one backward call of the same shape, priced as their sum (what
// flash-attention's benchmarks report as "forward + backward").
enum class KernelOpKind {
  kGemm,
  kAttentionForward,
  kAttentionBackward,
  kElementwise,
  kAttentionForwardBackward
};

// The `op` column's names: gemm, attention_fwd, attention_bwd, elementwise, attention_fwd_bwd.
std::string_view KernelOpKindName(KernelOpKind k);
std::optional<KernelOpKind> ParseKernelOpKind(std::string_view s);

struct KernelOp {
  KernelOpKind kind = KernelOpKind::kGemm;
  hw::DType dtype = hw::DType::kBf16;
  GemmShape gemm;            // kGemm
  AttentionShape attention;  // the attention kinds
  std::string backend;  // attention: the `backend` cell as written ("" none); attention.backend parses it
  Bytes bytes;          // kElementwise: bytes read + written
  std::optional<double> measured_ms;
};

// The op's duration under `model` (attention: priced as the family attention.backend names).
Duration PriceKernelOp(const ComputeModel& model, const KernelOp& op);

// The family a row is scored in: "gemm bf16", "gemm fp8", "attention_fwd cudnn", "elementwise", ...
std::string KernelOpFamily(const KernelOp& op);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_KERNEL_OP_H_
