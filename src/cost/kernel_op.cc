// Kernel ops and their prices; see the header.
#include "dlsim/cost/kernel_op.h"

#include <array>
#include <utility>

namespace dlsim::cost {
namespace {

constexpr std::array<std::pair<std::string_view, KernelOpKind>, 5> kKinds = {{
    {"gemm", KernelOpKind::kGemm},
    {"attention_fwd", KernelOpKind::kAttentionForward},
    {"attention_bwd", KernelOpKind::kAttentionBackward},
    {"elementwise", KernelOpKind::kElementwise},
    {"attention_fwd_bwd", KernelOpKind::kAttentionForwardBackward},
}};

}  // namespace

std::string_view KernelOpKindName(KernelOpKind k) {
  for (const auto& [name, kind] : kKinds)
    if (kind == k) return name;
  return "gemm";
}

std::optional<KernelOpKind> ParseKernelOpKind(std::string_view s) {
  for (const auto& [name, kind] : kKinds)
    if (name == s) return kind;
  return std::nullopt;
}

Duration PriceKernelOp(const ComputeModel& model, const KernelOp& op) {
  switch (op.kind) {
    case KernelOpKind::kGemm:
      return model.Gemm(op.gemm, op.dtype);
    case KernelOpKind::kAttentionForward:
      return model.AttentionForward(op.attention, op.dtype);
    case KernelOpKind::kAttentionBackward:
      return model.AttentionBackward(op.attention, op.dtype);
    case KernelOpKind::kElementwise:
      return model.MemoryBound(op.bytes, Flops(0), MemoryKind::kElementwise);
    case KernelOpKind::kAttentionForwardBackward:
      return model.AttentionForward(op.attention, op.dtype) + model.AttentionBackward(op.attention, op.dtype);
  }
  return Duration();
}

std::string KernelOpFamily(const KernelOp& op) {
  std::string family(KernelOpKindName(op.kind));
  if (op.kind == KernelOpKind::kGemm) return family + " " + std::string(hw::DTypeName(op.dtype));
  if (op.kind == KernelOpKind::kElementwise) return family;
  return family + " " + (op.backend.empty() ? "unknown" : op.backend);
}

}  // namespace dlsim::cost
