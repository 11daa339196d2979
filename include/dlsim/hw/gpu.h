// GPU specifications: one entry of the hardware catalog.
//
// Values come from data/catalog/gpus.yaml (embedded in the binary); every number there
// carries its source. Peak rates are dense (no 2:4 sparsity). Bandwidths are per direction.
//
//   const dlsim::hw::GpuSpec& g = *catalog.FindGpu("h100").value();
//   dlsim::FlopsPerSecond bf16 = g.Peak(dlsim::hw::DType::kBf16);
#ifndef DLSIM_HW_GPU_H_
#define DLSIM_HW_GPU_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/units.h"

namespace dlsim::hw {

enum class DType { kFp32, kTf32, kFp16, kBf16, kFp8, kInt8 };
inline constexpr int kNumDTypes = 6;
inline constexpr DType kAllDTypes[kNumDTypes] = {DType::kFp32, DType::kTf32, DType::kFp16,
                                                 DType::kBf16, DType::kFp8,  DType::kInt8};
std::string_view DTypeName(DType t);                  // "fp32", "tf32", ...
std::optional<DType> ParseDType(std::string_view s);  // inverse of DTypeName (case-insensitive)
double DTypeBytes(DType t);                           // 4, 4, 2, 2, 1, 1

// One MIG GPU-instance profile (e.g. "1g.10gb" on A100 80GB).
struct MigProfile {
  std::string name;
  int compute_slices = 0;  // of 7
  int memory_slices = 0;   // of 8
  int sms = 0;
  Bytes memory;  // usable memory of one instance
  int max_instances = 0;
  std::vector<int> start_slices;  // allowed placements (first memory slice index)
};

struct GpuSpec {
  std::string name;                                     // canonical, e.g. "h100-sxm5-80gb"
  std::vector<std::string> aliases;                     // e.g. "h100"
  std::string architecture;                             // "ampere", "hopper", ...
  std::string source;                                   // datasheets / whitepapers the numbers come from
  std::array<FlopsPerSecond, kNumDTypes> dense_peak{};  // zero when unsupported
  // The share of dense_peak a part sustains below its datasheet clocks (a lower power limit), per type, where
  // a measurement gives it (catalog `sustained_fraction`); zero where none does (the whole peak). The compute
  // models price with SustainedPeak; MFU stays against Peak, the datasheet's convention.
  std::array<double, kNumDTypes> sustained_fraction{};
  // The highest SM clock the part runs at (nvidia-smi -q "Max Clocks / SM", MHz): the clock the measured
  // rates hold at, since unlocked kernels boost to it when power permits; 0 where no source gives it (catalog
  // `max_sm_clock_mhz`). hw/sm_clock.h prices a locked clock against it, or against the next field.
  double max_sm_clock_mhz = 0;
  // The highest SM clock the part holds under full tensor-core load at its power limit, MHz, where a source
  // bounds it below the maximum (catalog `sustained_sm_clock_mhz`); 0 where none does. Measured full-load
  // rates held at most this clock, so a lock is priced against it (hw/sm_clock.h).
  double sustained_sm_clock_mhz = 0;
  Bytes hbm_capacity;
  BytesPerSecond hbm_bandwidth;
  int sm_count = 0;
  int max_threads_per_sm = 2048;  // resident threads per SM (the occupancy limit)
  // Per-SM limits of the tile-level GEMM model's occupancy (cost/tile_gemm.h); CUDA C++
  // Programming Guide, "Technical Specifications per Compute Capability".
  Bytes smem_per_sm = KiB(100);    // shared memory per SM
  Bytes smem_per_block = KiB(99);  // largest shared memory one thread block may use
  int regs_per_sm = 65536;         // 32-bit registers per SM
  int max_blocks_per_sm = 16;      // resident thread blocks per SM
  BytesPerSecond l2_bandwidth;     // L2 read bandwidth; zero when not published
  Bytes l2_size;
  BytesPerSecond nvlink_bandwidth;  // per GPU, per direction; zero for PCIe-only parts
  int pcie_gen = 0;
  int pcie_lanes = 0;
  double power_watts = 0;
  bool nvls = false;            // NVLink SHARP (in-switch reduction) available
  std::vector<MigProfile> mig;  // empty when the GPU has no MIG

  FlopsPerSecond Peak(DType t) const { return dense_peak[static_cast<int>(t)]; }
  FlopsPerSecond SustainedPeak(DType t) const {
    const double f = sustained_fraction[static_cast<int>(t)];
    return f > 0 ? Peak(t) * f : Peak(t);
  }
  bool Supports(DType t) const { return Peak(t).value() > 0; }
  // PCIe bandwidth per direction from generation and lanes, line encoding included (8b/10b for
  // Gen1-2, 128b/130b for Gen3-5, none for Gen6 FLIT mode): Gen4 x16 = 31.5 GB/s. Zero when
  // pcie_gen or pcie_lanes is unset or the generation is unknown.
  BytesPerSecond PcieBandwidth() const;
  // The MIG profile with this name ("1g.10gb"), or nullptr.
  const MigProfile* FindMigProfile(std::string_view name) const;
};

}  // namespace dlsim::hw

#endif  // DLSIM_HW_GPU_H_
