#include "dlsim/validate/trace_ops.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <vector>

namespace dlsim::validate {
namespace {

bool Has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool IsGemmName(std::string_view n) {
  return n == "aten::mm" || n == "aten::addmm" || n == "aten::bmm" || n == "aten::baddbmm" ||
         n == "aten::_scaled_mm" || n == "aten::matmul" || n == "aten::linear";
}

// Bytes per element of a recorded tensor type; 0 for a scalar, a list or an unknown type.
double TypeBytes(std::string_view t) {
  if (t == "float" || t == "int") return 4;
  if (t == "c10::BFloat16" || t == "c10::Half" || t == "short") return 2;
  if (t == "double" || t == "long int") return 8;
  if (t == "bool" || t == "unsigned char" || t == "signed char" || Has(t, "Float8")) return 1;
  return 0;
}

std::optional<hw::DType> DTypeOf(std::string_view t) {
  if (t == "c10::BFloat16") return hw::DType::kBf16;
  if (t == "c10::Half") return hw::DType::kFp16;
  if (t == "float") return hw::DType::kFp32;
  if (Has(t, "Float8")) return hw::DType::kFp8;
  return std::nullopt;
}

double Elements(const std::vector<int64_t>& d) {
  if (d.empty()) return 0;
  return std::accumulate(d.begin(), d.end(), 1.0,
                         [](double a, int64_t x) { return a * static_cast<double>(x); });
}

// GEMM operands: the two matrices (addmm / baddbmm: after the bias).
std::optional<cost::KernelOp> GemmOp(const TracedOp& op) {
  const size_t a = (op.name == "aten::addmm" || op.name == "aten::baddbmm") ? 1 : 0;
  if (op.dims.size() < a + 2 || op.types.size() < a + 1) return std::nullopt;
  const auto &x = op.dims[a], &y = op.dims[a + 1];
  const auto dt = DTypeOf(op.types[a]);
  if (!dt) return std::nullopt;
  cost::KernelOp k;
  k.kind = cost::KernelOpKind::kGemm;
  k.dtype = *dt;
  if (x.size() == 2 && y.size() == 2 && x[1] == y[0]) {
    k.gemm = {.m = x[0], .n = y[1], .k = x[1]};
  } else if (x.size() == 3 && y.size() == 3 && x[2] == y[1] && x[0] == y[0]) {
    k.gemm = {.m = x[1], .n = y[2], .k = x[2], .batch = x[0]};
  } else {
    return std::nullopt;
  }
  if (k.gemm.m <= 0 || k.gemm.n <= 0 || k.gemm.k <= 0) return std::nullopt;
  return k;
}

// Attention: the family from the operator's name; cuDNN and the SDPA wrappers record [batch, heads, seq,
// head_dim], the flash / memory-efficient kernels [batch, seq, heads, head_dim]. Backward calls take the
// output gradient first.
std::optional<cost::KernelOp> AttentionOp(const TracedOp& op, bool backward, bool causal) {
  const size_t q = backward ? 1 : 0;
  if (op.dims.size() < q + 2 || op.types.size() <= q) return std::nullopt;
  const auto &qd = op.dims[q], &kd = op.dims[q + 1];
  if (qd.size() != 4 || kd.size() != 4) return std::nullopt;
  const bool bshd = Has(op.name, "aten::_flash_attention") || Has(op.name, "aten::_efficient_attention");
  cost::KernelOp k;
  k.kind = backward ? cost::KernelOpKind::kAttentionBackward : cost::KernelOpKind::kAttentionForward;
  k.dtype = DTypeOf(op.types[q]).value_or(hw::DType::kBf16);
  auto& s = k.attention;
  s.batch = qd[0];
  s.heads = bshd ? qd[2] : qd[1];
  s.seq_q = bshd ? qd[1] : qd[2];
  s.kv_heads = bshd ? kd[2] : kd[1];
  s.seq_kv = bshd ? kd[1] : kd[2];
  s.head_dim = qd[3];
  s.causal = causal;
  k.backend = Has(op.name, "cudnn")       ? "cudnn"
              : Has(op.name, "flash")     ? "flash"
              : Has(op.name, "efficient") ? "efficient"
                                          : "";
  if (auto b = cost::ParseAttentionBackend(k.backend)) s.backend = *b;
  if (s.batch <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.seq_q <= 0 || s.seq_kv <= 0 || s.head_dim <= 0)
    return std::nullopt;
  return k;
}

// Bytes an elementwise operator moves: its tensor inputs read, and a result the size of the largest
// written (copy_ writes into its first input; a fill or zero only writes).
std::optional<cost::KernelOp> ElementwiseOp(const TracedOp& op) {
  double read = 0, largest = 0;
  for (size_t i = 0; i < op.dims.size() && i < op.types.size(); ++i) {
    const double b = Elements(op.dims[i]) * TypeBytes(op.types[i]);
    read += b;
    largest = std::max(largest, b);
  }
  const std::string_view n = op.name;
  double bytes = read + largest;
  if (n == "aten::copy_") bytes = read;
  if (n == "aten::fill_" || n == "aten::zero_") bytes = largest;
  if (n == "aten::_to_copy" && op.concrete.size() > 1 && !op.dims.empty()) {
    const std::string& code = op.concrete[1];  // c10::ScalarType: 5 half, 6 float, 15 bfloat16
    const double same = op.types.empty() ? 0 : TypeBytes(op.types[0]);
    const double out = code == "6" ? 4 : (code == "5" || code == "15") ? 2 : same;
    bytes = read + Elements(op.dims[0]) * out;
  }
  if (!(bytes > 0)) return std::nullopt;
  cost::KernelOp k;
  k.kind = cost::KernelOpKind::kElementwise;
  k.bytes = Bytes(bytes);
  return k;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The median of the gaps between consecutive `starts` that no blocked launch stretched.
std::optional<double> CleanGapMedian(const std::vector<double>& starts, const ProfiledStep& step,
                                     double launch_us, int& clean) {
  std::vector<double> gaps;
  auto it = step.launches.begin();
  for (size_t i = 0; i + 1 < starts.size(); ++i) {
    const double a = starts[i], b = starts[i + 1];
    double blocked = 0;
    it = std::lower_bound(it, step.launches.end(), a,
                          [](const TracedLaunch& l, double t) { return l.start_us < t; });
    for (auto l = it; l != step.launches.end() && l->start_us < b; ++l)
      blocked += std::max(0.0, l->dur_us - 3 * launch_us);
    if (blocked <= 0.05 * (b - a)) gaps.push_back(b - a);
  }
  clean = static_cast<int>(gaps.size());
  if (gaps.size() < 2) return std::nullopt;
  return Median(gaps);
}

}  // namespace

std::string_view TraceCategoryName(TraceCategory c) {
  static constexpr std::array<std::string_view, kNumTraceCategories> kNames = {
      "gemm", "attention_fwd", "attention_bwd", "elementwise", "norm",
      "loss", "optimizer",     "communication", "other"};
  return kNames[static_cast<size_t>(c)];
}

TraceCategory Categorize(const TracedOp& op) {
  const std::string_view n = op.name, kernel = op.first_kernel;
  if (Has(n, "nccl") || Has(n, "c10d") || Has(kernel, "nccl")) return TraceCategory::kCommunication;
  if (IsGemmName(n)) return TraceCategory::kGemm;
  if (Has(n, "attention"))
    return Has(n, "backward") ? TraceCategory::kAttentionBackward : TraceCategory::kAttentionForward;
  if (Has(n, "adam") || Has(n, "_foreach_") || Has(n, "sgd") || Has(kernel, "multi_tensor_apply"))
    return TraceCategory::kOptimizer;
  if (Has(n, "nll_loss") || Has(n, "log_softmax") || Has(n, "cross_entropy")) return TraceCategory::kLoss;
  if (Has(n, "norm")) return TraceCategory::kNorm;
  if (Has(n, "embedding") || Has(n, "gather") || Has(n, "index") || Has(n, "sort") || Has(n, "scatter") ||
      Has(n, "arange") || Has(n, "unique"))
    return TraceCategory::kOther;
  return n.rfind("aten::", 0) == 0 ? TraceCategory::kElementwise : TraceCategory::kOther;
}

std::array<double, kNumTraceCategories> GpuMsByCategory(const ProfiledStep& step) {
  std::array<double, kNumTraceCategories> ms{};
  for (const TracedOp& op : step.ops) ms[static_cast<size_t>(Categorize(op))] += op.gpu_us / 1e3;
  return ms;
}

std::optional<cost::KernelOp> ToKernelOp(const TracedOp& op, bool causal) {
  switch (Categorize(op)) {
    case TraceCategory::kGemm:
      return GemmOp(op);
    case TraceCategory::kAttentionForward:
      return AttentionOp(op, false, causal);
    case TraceCategory::kAttentionBackward:
      return AttentionOp(op, true, causal);
    case TraceCategory::kElementwise:
      return ElementwiseOp(op);
    default:
      return std::nullopt;
  }
}

HostTiming MeasureHost(const ProfiledStep& step) {
  HostTiming h;
  h.gpu_busy_fraction = step.gpu_span_us > 0 ? step.gpu_busy_us / step.gpu_span_us : 0;
  std::vector<const TracedOp*> fwd, bwd;
  for (const TracedOp& op : step.ops) {
    const TraceCategory c = Categorize(op);
    if (c == TraceCategory::kAttentionForward) fwd.push_back(&op);
    if (c == TraceCategory::kAttentionBackward) bwd.push_back(&op);
  }
  h.layers = static_cast<int>(bwd.size());
  h.recompute = !bwd.empty() && fwd.size() >= 2 * bwd.size();
  if (fwd.empty() || bwd.empty()) return h;
  std::vector<double> fwd_starts, bwd_starts, launch;
  for (const TracedOp* op : fwd)
    if (op->thread == fwd.front()->thread && op->cpu_start_us < bwd.front()->cpu_start_us)
      fwd_starts.push_back(op->cpu_start_us);
  for (const TracedOp* op : bwd) bwd_starts.push_back(op->cpu_start_us);
  for (const TracedLaunch& l : step.launches) launch.push_back(l.dur_us);
  const double typical = launch.empty() ? 0 : Median(launch);
  h.fwd_layer_us = CleanGapMedian(fwd_starts, step, typical, h.fwd_gaps);
  h.bwd_layer_us = CleanGapMedian(bwd_starts, step, typical, h.bwd_gaps);
  return h;
}

}  // namespace dlsim::validate
