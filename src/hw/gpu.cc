#include "dlsim/hw/gpu.h"

#include <cctype>
#include <string>

namespace dlsim::hw {
namespace {
constexpr std::string_view kDTypeNames[kNumDTypes] = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
constexpr double kDTypeBytes[kNumDTypes] = {4, 4, 2, 2, 1, 1};

// Per-lane payload rate of one PCIe generation in GB/s per direction, line encoding included.
double PcieLaneGBps(int gen) {
  switch (gen) {
    case 1:
      return 2.5 * 8.0 / 10.0 / 8.0;  // 2.5 GT/s, 8b/10b
    case 2:
      return 5.0 * 8.0 / 10.0 / 8.0;  // 5 GT/s, 8b/10b
    case 3:
      return 8.0 * 128.0 / 130.0 / 8.0;  // 8 GT/s, 128b/130b
    case 4:
      return 16.0 * 128.0 / 130.0 / 8.0;  // 16 GT/s, 128b/130b
    case 5:
      return 32.0 * 128.0 / 130.0 / 8.0;  // 32 GT/s, 128b/130b
    case 6:
      return 64.0 / 8.0;  // 64 GT/s PAM4, FLIT mode (no line code)
    default:
      return 0.0;
  }
}
}  // namespace

std::string_view DTypeName(DType t) { return kDTypeNames[static_cast<int>(t)]; }

std::optional<DType> ParseDType(std::string_view s) {
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i < kNumDTypes; ++i) {
    if (lower == kDTypeNames[i]) return static_cast<DType>(i);
  }
  return std::nullopt;
}

double DTypeBytes(DType t) { return kDTypeBytes[static_cast<int>(t)]; }

BytesPerSecond GpuSpec::PcieBandwidth() const {
  if (pcie_lanes <= 0) return BytesPerSecond(0);
  return GBps(PcieLaneGBps(pcie_gen) * pcie_lanes);
}

const MigProfile* GpuSpec::FindMigProfile(std::string_view profile) const {
  for (const auto& p : mig) {
    if (p.name == profile) return &p;
  }
  return nullptr;
}

}  // namespace dlsim::hw
