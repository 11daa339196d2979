// What a profiled step's operators are, in dlsim's terms: each traced operator's category (GEMM,
// attention forward / backward, elementwise, norm, loss, optimizer, communication, other), the
// cost::KernelOp that prices it where its recorded shapes allow (GEMMs from their operands, attention
// from its query and key tensors and kernel family, elementwise kernels from the bytes they move), and the
// host's time to issue one layer, measured between consecutive layers' attention calls.
//
//   for (const TracedOp& op : step.ops) {
//     TraceCategory c = Categorize(op);
//     std::optional<cost::KernelOp> k = ToKernelOp(op, step.causal.value_or(true));
//   }
//   HostTiming h = MeasureHost(step);   // h.fwd_layer_us, h.bwd_layer_us when the host was measurable
//
// The rules are PyTorch's operator names (aten::mm, aten::_cudnn_attention_forward, ...); an operator no
// rule knows is `other` and priced by nothing. Pure functions.
#ifndef DLSIM_VALIDATE_TRACE_OPS_H_
#define DLSIM_VALIDATE_TRACE_OPS_H_

#include <array>
#include <optional>
#include <string_view>

#include "dlsim/cost/kernel_op.h"
#include "dlsim/validate/profiled_step.h"

namespace dlsim::validate {

enum class TraceCategory {
  kGemm,
  kAttentionForward,
  kAttentionBackward,
  kElementwise,  // activations, adds and multiplies, casts and copies, fills, concatenations
  kNorm,
  kLoss,
  kOptimizer,
  kCommunication,
  kOther,  // embeddings, gathers, sorts, anything no rule names
};
inline constexpr int kNumTraceCategories = 9;
std::string_view TraceCategoryName(TraceCategory c);  // "gemm", "attention_fwd", ...

TraceCategory Categorize(const TracedOp& op);
// GPU time (ms) of the step's operators, by category (index: TraceCategory).
std::array<double, kNumTraceCategories> GpuMsByCategory(const ProfiledStep& step);

// The operator as dlsim prices it, or nullopt when its category has no kernel model or its recorded
// shapes do not say enough (a GEMM without two matrix operands, a tensor list). `causal`: the step's mask.
std::optional<cost::KernelOp> ToKernelOp(const TracedOp& op, bool causal);

// The host's time to issue one decoder layer: the median gap between consecutive layers' attention calls,
// forward (on the thread that ran the first forward attention, before the first backward) and backward.
// A gap during which kernel launches blocked (the launch queue was full: the GPU, not the host, set the
// pace) is left out; a pass with fewer than two clean gaps is not measured (nullopt).
struct HostTiming {
  int layers = 0;          // attention backward calls (one per layer)
  bool recompute = false;  // the forward attention ran twice per layer (activation recomputation)
  std::optional<double> fwd_layer_us, bwd_layer_us;
  int fwd_gaps = 0, bwd_gaps = 0;  // clean gaps measured
  double gpu_busy_fraction = 0;    // gpu_busy / gpu_span
};
HostTiming MeasureHost(const ProfiledStep& step);

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_TRACE_OPS_H_
