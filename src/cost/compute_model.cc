#include "dlsim/cost/compute_model.h"

#include <algorithm>
#include <string>

#include "dlsim/cost/kernel_time.h"
#include "dlsim/cost/sparse_gemm.h"

namespace dlsim::cost {
namespace {

double DTypeSize(hw::DType dt) {
  switch (dt) {
    case hw::DType::kFp32:
    case hw::DType::kTf32:
      return 4;
    case hw::DType::kFp16:
    case hw::DType::kBf16:
      return 2;
    case hw::DType::kFp8:
    case hw::DType::kInt8:
      return 1;
  }
  return 2;
}

// The calibrated analytical model (formulas in kernel_time.h).
class RooflineComputeModel final : public ComputeModel {
 public:
  RooflineComputeModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal)
      : arch_(ResolveArchCalibration(gpu, cal)) {
    for (int i = 0; i < hw::kNumDTypes; ++i) {
      const auto dt = static_cast<hw::DType>(i);
      rates_[i] = DeviceRates::Of(gpu, dt);
      gemm_[i] = arch_.Gemm(dt);
    }
  }

  Duration Gemm(const GemmShape& s, hw::DType dt) const override {
    const int i = static_cast<int>(dt);
    return Seconds(GemmSeconds(s, DTypeSize(dt), arch_, gemm_[i], rates_[i]));
  }
  Duration AttentionForward(const AttentionShape& s, hw::DType dt) const override {
    return Seconds(AttentionSeconds(s, /*backward=*/false, arch_, AttentionRates(dt)));
  }
  Duration AttentionBackward(const AttentionShape& s, hw::DType dt) const override {
    return Seconds(AttentionSeconds(s, /*backward=*/true, arch_, AttentionRates(dt)));
  }
  Duration AttentionForwardVarlen(const std::vector<AttentionShape>& blocks, hw::DType dt) const override {
    return Seconds(AttentionVarlenSeconds(blocks, /*backward=*/false, arch_, AttentionRates(dt)));
  }
  Duration AttentionBackwardVarlen(const std::vector<AttentionShape>& blocks, hw::DType dt) const override {
    return Seconds(AttentionVarlenSeconds(blocks, /*backward=*/true, arch_, AttentionRates(dt)));
  }
  Duration MemoryBound(Bytes moved, Flops flops, MemoryKind kind) const override {
    return Seconds(MemoryBoundSeconds(moved.value(), flops.value(), arch_.memory,
                                      rates_[static_cast<int>(hw::DType::kBf16)], kind));
  }
  Duration SparseWeightGemm(const GemmShape& s, hw::DType dt, double sparsity,
                            const SparseWeightFormat& format) const override {
    const int i = static_cast<int>(dt);
    return Seconds(SparseWeightGemmSeconds(s, DTypeSize(dt), sparsity, format, arch_, gemm_[i], rates_[i]));
  }
  std::string_view name() const override { return "roofline"; }

 private:
  // FP8 attention (FlashAttention-3 FP8) is not modelled separately: 16-bit rates.
  const DeviceRates& AttentionRates(hw::DType dt) const {
    if (dt == hw::DType::kFp8 || dt == hw::DType::kInt8) dt = hw::DType::kBf16;
    return rates_[static_cast<int>(dt)];
  }

  ArchCalibration arch_;
  DeviceRates rates_[hw::kNumDTypes];
  GemmCalibration gemm_[hw::kNumDTypes];
};

// Fake for tests: a fixed time per call that does any work.
class ConstantComputeModel final : public ComputeModel {
 public:
  explicit ConstantComputeModel(Duration per_call) : per_call_(per_call) {}
  Duration Gemm(const GemmShape& s, hw::DType) const override {
    return s.flops().value() > 0 ? per_call_ : Duration();
  }
  Duration AttentionForward(const AttentionShape& s, hw::DType) const override { return Of(s); }
  Duration AttentionBackward(const AttentionShape& s, hw::DType) const override { return Of(s); }
  Duration MemoryBound(Bytes moved, Flops flops, MemoryKind) const override {
    return moved.value() > 0 || flops.value() > 0 ? per_call_ : Duration();
  }
  std::string_view name() const override { return "constant"; }

 private:
  Duration Of(const AttentionShape& s) const { return s.Pairs() > 0 ? per_call_ : Duration(); }
  Duration per_call_;
};

}  // namespace

Flops GemmShape::flops() const {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return Flops(0);
  return Flops(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
               static_cast<double>(batch));
}

double GemmShape::Elements() const {
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  return (dm * dk + dk * dn + dm * dn) * static_cast<double>(batch);
}

double CappedSum(double first, double last, double cap) {
  if (last < first) return 0;
  if (cap <= 0 || last <= cap) return (first + last) * (last - first + 1) / 2;
  if (first >= cap) return (last - first + 1) * cap;
  return (first + cap) * (cap - first + 1) / 2 + (last - cap) * cap;
}

double AttentionShape::Pairs() const {
  if (batch <= 0 || heads <= 0 || seq_q <= 0 || seq_kv <= 0) return 0;
  const double q = static_cast<double>(seq_q), kv = static_cast<double>(seq_kv);
  if (!causal) return q * kv;
  // Bottom-right aligned: query i of seq_q sees kv - q + i + 1 keys.
  if (q <= kv) return CappedSum(kv - q + 1, kv, static_cast<double>(window));
  const double pairs = std::max(0.0, q * kv - kv * (kv - 1) / 2);
  return window > 0 ? std::min(pairs, q * static_cast<double>(window)) : pairs;
}

Flops AttentionShape::ForwardFlops() const {
  return Flops(4.0 * Pairs() * static_cast<double>(head_dim) * static_cast<double>(heads * batch));
}

Flops AttentionShape::BackwardFlops() const { return ForwardFlops() * 2.5; }

std::unique_ptr<ComputeModel> MakeRooflineComputeModel(const hw::GpuSpec& gpu,
                                                       const ComputeCalibration& cal) {
  return std::make_unique<RooflineComputeModel>(gpu, cal);
}

std::unique_ptr<ComputeModel> MakeConstantComputeModel(Duration per_call) {
  return std::make_unique<ConstantComputeModel>(per_call);
}

void RegisterComputeModels(ComputeModelRegistry& reg) {
  // Names are fixed and distinct: registration cannot fail.
  reg.RegisterBuiltin(
      "roofline", "Roofline with size- and shape-dependent efficiency fitted on measured operator profiles",
      [](const hw::GpuSpec& gpu, const ComputeCalibration& cal) {
        return MakeRooflineComputeModel(gpu, cal);
      });
  reg.RegisterBuiltin(
      "tile", "GEMMs by template search over a CUTLASS-style tile model (waves, occupancy, traffic)",
      [](const hw::GpuSpec& gpu, const ComputeCalibration& cal) { return MakeTileComputeModel(gpu, cal); });
  reg.RegisterBuiltin("learned",
                      "GEMMs by the tile model corrected by trees fitted on profiles (CDMPP-style)",
                      [](const hw::GpuSpec& gpu, const ComputeCalibration& cal) {
                        return MakeLearnedComputeModel(gpu, cal);
                      });
  reg.RegisterBuiltin(
      "constant", "Fixed time per kernel call (a fake for tests)",
      [](const hw::GpuSpec&, const ComputeCalibration&) { return MakeConstantComputeModel(); });
}

}  // namespace dlsim::cost
