#include "fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "dlsim/cost/kernel_time.h"

namespace dlsim::fit {

cost::MemoryKind MemoryKindOfOp(const std::string& op) {
  if (op.find("layernorm") != std::string::npos || op.find("norm") != std::string::npos)
    return cost::MemoryKind::kNormalization;
  if (op == "emb") return cost::MemoryKind::kGather;
  return cost::MemoryKind::kElementwise;
}
namespace {

// Mean |log(pred / measured)| over the non-held-out samples of one kind: a symmetric relative
// error that is smooth enough for the simplex.
double Loss(const std::vector<const Sample*>& rows, const cost::ArchCalibration& arch) {
  double sum = 0;
  for (const Sample* s : rows) sum += std::abs(std::log(Predict(*s, arch) / s->measured_s));
  return rows.empty() ? 0 : sum / static_cast<double>(rows.size());
}

std::vector<const Sample*> Rows(const std::vector<Sample>& samples, const std::string& arch,
                                SampleKind kind) {
  std::vector<const Sample*> out;
  for (const auto& s : samples) {
    if (!s.held_out && s.kind == kind && s.architecture == arch) out.push_back(&s);
  }
  return out;
}

constexpr int kTrainingWeight = 3;

// Parameters are optimized in log space so they stay positive.
double Exp(double v) { return std::exp(v); }
double Log(double v) { return std::log(v); }

void FitGemm(const std::vector<const Sample*>& rows, cost::ArchCalibration& arch) {
  const cost::GemmCalibration g = arch.Gemm(hw::DType::kBf16);
  auto apply = [&arch](const std::vector<double>& x) {
    cost::GemmCalibration c{std::min(1.0, Exp(x[0])), Exp(x[1]), Exp(x[2]), std::min(1.0, Exp(x[3]))};
    arch.gemm[hw::DType::kFp16] = c;
    arch.gemm[hw::DType::kBf16] = c;
    arch.gemm_overhead = Seconds(Exp(x[4]));
  };
  auto f = [&](const std::vector<double>& x) {
    apply(x);
    return Loss(rows, arch);
  };
  std::vector<double> x = {Log(g.max_efficiency), Log(g.k_half), Log(g.tiles_half), Log(g.mem_efficiency),
                           Log(5e-6)};
  x = NelderMead(f, x, {0.2, 0.5, 0.5, 0.2, 0.5}, 300);
  x = NelderMead(f, x, {0.05, 0.2, 0.2, 0.05, 0.2}, 300);
  apply(x);
}

// One efficiency per access pattern (elementwise, normalization, gather) and one launch overhead.
void FitMemory(const std::vector<const Sample*>& rows, cost::ArchCalibration& arch) {
  auto apply = [&arch](const std::vector<double>& x) {
    arch.memory.efficiency = std::min(1.0, Exp(x[0]));
    arch.memory.norm_efficiency = std::min(1.0, Exp(x[1]));
    arch.memory.gather_efficiency = std::min(1.0, Exp(x[2]));
    arch.memory.overhead = Seconds(Exp(x[3]));
  };
  auto f = [&](const std::vector<double>& x) {
    apply(x);
    return Loss(rows, arch);
  };
  std::vector<double> x = NelderMead(f, {Log(0.7), Log(0.5), Log(0.3), Log(5e-6)}, {0.2, 0.2, 0.2, 0.5}, 600);
  x = NelderMead(f, x, {0.05, 0.05, 0.05, 0.1}, 600);
  apply(x);
}

void FitAttention(const std::vector<const Sample*>& rows, cost::ArchCalibration& arch) {
  const double bwd_ratio = arch.attention.bwd_efficiency / arch.attention.fwd_efficiency;
  auto apply = [&arch, bwd_ratio](const std::vector<double>& x) {
    arch.attention.fwd_efficiency = std::min(1.0, Exp(x[0]));
    arch.attention.bwd_efficiency = std::min(1.0, arch.attention.fwd_efficiency * bwd_ratio);
    arch.attention.overhead = Seconds(Exp(x[1]));
  };
  auto f = [&](const std::vector<double>& x) {
    apply(x);
    return Loss(rows, arch);
  };
  std::vector<double> x = NelderMead(f, {Log(0.4), Log(10e-6)}, {0.2, 0.5}, 400);
  apply(x);
}

}  // namespace

double Predict(const Sample& s, const cost::ArchCalibration& arch) {
  static const cost::DeviceRates kAmpere = cost::DeviceRates::Of(ProfiledGpu("ampere"), hw::DType::kBf16);
  static const cost::DeviceRates kHopper = cost::DeviceRates::Of(ProfiledGpu("hopper"), hw::DType::kBf16);
  const cost::DeviceRates& r = s.architecture == "hopper" ? kHopper : kAmpere;
  switch (s.kind) {
    case SampleKind::kGemm:
      return cost::GemmSeconds(s.gemm, 2.0, arch, arch.Gemm(hw::DType::kBf16), r);
    case SampleKind::kAttention:
      return cost::AttentionSeconds(s.attention, /*backward=*/false, arch, r);
    case SampleKind::kMemory:
      return cost::MemoryBoundSeconds(s.bytes, s.flops, arch.memory, r, MemoryKindOfOp(s.op));
  }
  return 0;
}

cost::ArchCalibration FitArchitecture(const std::vector<Sample>& samples,
                                      const cost::ArchCalibration& start) {
  cost::ArchCalibration arch = start;
  auto gemm = Rows(samples, arch.architecture, SampleKind::kGemm);
  // Weight the training regime: rows with many tokens count kTrainingWeight times.
  const size_t n = gemm.size();
  for (size_t i = 0; i < n; ++i) {
    if (gemm[i]->num_tokens < kTrainingTokens) continue;
    for (int w = 1; w < kTrainingWeight; ++w) gemm.push_back(gemm[i]);
  }
  if (!gemm.empty()) FitGemm(gemm, arch);
  const auto memory = Rows(samples, arch.architecture, SampleKind::kMemory);
  if (!memory.empty()) FitMemory(memory, arch);
  const auto attention = Rows(samples, arch.architecture, SampleKind::kAttention);
  if (!attention.empty()) FitAttention(attention, arch);
  return arch;
}

std::vector<OpError> Score(const std::vector<Sample>& samples, const cost::ComputeCalibration& cal,
                           int64_t min_tokens) {
  std::map<std::pair<std::string, std::string>, OpError> by_op;
  for (const auto& s : samples) {
    const cost::ArchCalibration* arch = cal.FindArchOrNull(s.architecture);
    if (!arch || s.num_tokens < min_tokens) continue;
    OpError& e = by_op[{s.architecture, s.op}];
    e.architecture = s.architecture;
    e.op = s.op;
    const double err = 100.0 * std::abs(Predict(s, *arch) - s.measured_s) / s.measured_s;
    if (s.held_out) {
      e.held_mape += err;
      ++e.held_rows;
    } else {
      e.fit_mape += err;
      ++e.fit_rows;
    }
  }
  std::vector<OpError> out;
  for (auto& [key, e] : by_op) {
    if (e.fit_rows) e.fit_mape /= e.fit_rows;
    if (e.held_rows) e.held_mape /= e.held_rows;
    out.push_back(e);
  }
  return out;
}

}  // namespace dlsim::fit
