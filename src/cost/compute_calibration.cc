#include "dlsim/cost/compute_calibration.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace dlsim::cost {
namespace {

// FP8 GEMMs reach a lower fraction of their doubled peak than 16-bit ones (cuBLAS FP8 vs BF16
// on H100; docs/cost-model.md). Used only when the calibration has no fp8 entry.
constexpr double kFp8RelativeEfficiency = 0.85;

const GemmCalibration* Find(const std::map<hw::DType, GemmCalibration>& m, hw::DType dt) {
  auto it = m.find(dt);
  return it == m.end() ? nullptr : &it->second;
}

// Adds `a` / n to the running mean `sum`.
void AddTile(const TileCalibration& a, double n, TileCalibration& sum) {
  sum.mma_efficiency += a.mma_efficiency / n;
  sum.hbm_efficiency += a.hbm_efficiency / n;
  sum.launch += Seconds(a.launch.ToSeconds() / n);
  sum.tile_overhead += Seconds(a.tile_overhead.ToSeconds() / n);
  sum.memory_latency += Seconds(a.memory_latency.ToSeconds() / n);
}

}  // namespace

std::string_view AttentionBackendName(AttentionBackend b) {
  for (const auto& [name, backend] : kAttentionBackendNames)
    if (backend == b) return name;
  return "model";
}

std::optional<AttentionBackend> ParseAttentionBackend(std::string_view s) {
  for (const auto& [name, backend] : kAttentionBackendNames)
    if (name == s) return backend;
  return std::nullopt;
}

const AttentionCalibration& ArchCalibration::Attention(AttentionBackend b) const {
  if (b == AttentionBackend::kPytorchDefault) b = pytorch_default;
  auto it = attention_backends.find(b);
  return it == attention_backends.end() ? attention : it->second;
}

GemmCalibration ArchCalibration::Gemm(hw::DType dt) const {
  using hw::DType;
  if (const auto* g = Find(gemm, dt)) return *g;
  const auto* half = Find(gemm, DType::kBf16);
  if (!half) half = Find(gemm, DType::kFp16);
  switch (dt) {
    case DType::kInt8:
      if (const auto* g = Find(gemm, DType::kFp8)) return *g;
      [[fallthrough]];
    case DType::kFp8: {
      GemmCalibration g = half ? *half : GemmCalibration{};
      g.max_efficiency *= kFp8RelativeEfficiency;
      return g;
    }
    default:
      return half ? *half : GemmCalibration{};
  }
}

const ArchCalibration* ComputeCalibration::FindArchOrNull(std::string_view architecture) const& {
  for (const auto& a : archs) {
    if (a.architecture == architecture) return &a;
  }
  return nullptr;
}

namespace {

// The mean curve of the architectures that calibrate `dt` themselves (an FP8 curve measured or fitted
// on FP8 hardware); nullopt when none does. Curves synthesised from another type (Gemm()'s fallback,
// e.g. FP8 on Ampere, which has no FP8 tensor cores) do not count.
std::optional<GemmCalibration> MeanOfExplicit(const ComputeCalibration& cal, hw::DType dt) {
  std::vector<const GemmCalibration*> own;
  for (const auto& a : cal.archs)
    if (auto it = a.gemm.find(dt); it != a.gemm.end()) own.push_back(&it->second);
  if (own.empty()) return std::nullopt;
  const double n = static_cast<double>(own.size());
  GemmCalibration m{0, 0, 0, 0};
  for (const GemmCalibration* g : own) {
    m.max_efficiency += g->max_efficiency / n;
    m.k_half += g->k_half / n;
    m.tiles_half += g->tiles_half / n;
    m.mem_efficiency += g->mem_efficiency / n;
  }
  return m;
}

}  // namespace

ArchCalibration DefaultArchCalibration(const hw::GpuSpec& gpu, const ComputeCalibration& cal) {
  ArchCalibration d;
  d.architecture = gpu.architecture;
  d.source = "default: mean of calibrated architectures' dimensionless constants";
  // Large tiles need enough SMs to fill a wave; small GPUs (L4: 58 SMs) use the same tiles.
  d.tile_m = 128;
  d.tile_n = gpu.sm_count >= 100 ? 256 : 128;
  if (cal.archs.empty()) {
    d.source = "default: built-in constants (no calibration loaded)";
    d.gemm[hw::DType::kBf16] = GemmCalibration{};
    return d;
  }
  const double n = static_cast<double>(cal.archs.size());
  GemmCalibration g16{0, 0, 0, 0};
  AttentionCalibration att{0, 0, Duration::Zero()};
  MemoryBoundCalibration mem{0, 0, 0, 0, 0, 0, Duration::Zero()};
  TileCalibration tile{0, 0, Duration::Zero(), Duration::Zero(), Duration::Zero()};
  double gemm_overhead_s = 0;
  for (const auto& a : cal.archs) {
    const GemmCalibration g = a.Gemm(hw::DType::kBf16);
    g16.max_efficiency += g.max_efficiency / n;
    g16.k_half += g.k_half / n;
    g16.tiles_half += g.tiles_half / n;
    g16.mem_efficiency += g.mem_efficiency / n;
    att.fwd_efficiency += a.attention.fwd_efficiency / n;
    att.bwd_efficiency += a.attention.bwd_efficiency / n;
    att.overhead += Seconds(a.attention.overhead.ToSeconds() / n);
    mem.efficiency += a.memory.efficiency / n;
    mem.norm_efficiency += a.memory.Efficiency(MemoryKind::kNormalization) / n;
    mem.gather_efficiency += a.memory.Efficiency(MemoryKind::kGather) / n;
    mem.optimizer_efficiency += a.memory.Efficiency(MemoryKind::kOptimizer) / n;
    mem.copy_efficiency += a.memory.Efficiency(MemoryKind::kCopy) / n;
    mem.permute_efficiency += a.memory.Efficiency(MemoryKind::kPermute) / n;
    mem.overhead += Seconds(a.memory.overhead.ToSeconds() / n);
    gemm_overhead_s += a.gemm_overhead.ToSeconds() / n;
    AddTile(a.tile, n, tile);
  }
  d.gemm[hw::DType::kBf16] = g16;
  d.gemm[hw::DType::kFp16] = g16;
  if (auto fp8 = MeanOfExplicit(cal, hw::DType::kFp8)) d.gemm[hw::DType::kFp8] = *fp8;
  d.attention = att;
  d.memory = mem;
  d.tile = tile;
  d.gemm_overhead = Seconds(gemm_overhead_s);
  return d;
}

ArchCalibration ArchOrFallback(const hw::GpuSpec& gpu, const ComputeCalibration& cal) {
  if (const ArchCalibration* found = cal.FindArchOrNull(gpu.architecture)) return *found;
  ArchCalibration a = DefaultArchCalibration(gpu, cal);
  for (const ArchFamilyOverlay& o : cal.family_overlays) {
    if (o.architecture != gpu.architecture) continue;
    a.attention_backends = o.attention_backends;
    a.pytorch_default = o.pytorch_default;
    a.source += "; attention families measured: " + o.source;
  }
  return a;
}

ArchCalibration ResolveArchCalibration(const hw::GpuSpec& gpu, const ComputeCalibration& cal) {
  ArchCalibration a = ArchOrFallback(gpu, cal);
  for (const GpuGemmCalibration& g : cal.gpu_gemms) {
    if (g.gpu != gpu.name) continue;
    for (const auto& [dt, curve] : g.gemm) a.gemm[dt] = curve;
    a.gemm_overhead = g.gemm_overhead;
    a.gemm_alignment = g.gemm_alignment;
    a.split_k = g.split_k;
    a.source += "; GEMMs measured on " + g.gpu + ": " + g.source;
  }
  return a;
}

}  // namespace dlsim::cost
