#include "dlsim/report/format.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <span>

namespace dlsim::report {
namespace {

struct Unit {
  std::string_view name;
  double size;  // in the base unit
};

double RoundTo(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

// `v` in the smallest unit in which it does not print as a full next unit ("1000.000 ms" is
// printed "1.000 s"); the first unit prints with `first_decimals`, the others with `decimals`.
std::string FormatScaled(double v, std::span<const Unit> units, int decimals, int first_decimals,
                         std::string_view separator) {
  if (!std::isfinite(v)) return fmt::format("{}{}{}", v, separator, units[0].name);
  size_t i = 0;
  int d = first_decimals;
  while (i + 1 < units.size() &&
         RoundTo(std::fabs(v) / units[i].size, d) >= units[i + 1].size / units[i].size) {
    ++i;
    d = decimals;
  }
  return fmt::format("{:.{}f}{}{}", v / units[i].size, d, separator, units[i].name);
}

constexpr std::array<Unit, 6> kTimeUnits = {
    {{"ns", 1.0}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"min", 60e9}, {"h", 3600e9}}};
constexpr std::array<Unit, 6> kByteUnits = {{{"B", 1.0},
                                             {"KiB", 1024.0},
                                             {"MiB", 1024.0 * 1024},
                                             {"GiB", 1024.0 * 1024 * 1024},
                                             {"TiB", 1024.0 * 1024 * 1024 * 1024},
                                             {"PiB", 1024.0 * 1024 * 1024 * 1024 * 1024}}};
constexpr std::array<Unit, 7> kFlopRateUnits = {{{"FLOP/s", 1.0},
                                                 {"kFLOP/s", 1e3},
                                                 {"MFLOP/s", 1e6},
                                                 {"GFLOP/s", 1e9},
                                                 {"TFLOP/s", 1e12},
                                                 {"PFLOP/s", 1e15},
                                                 {"EFLOP/s", 1e18}}};
constexpr std::array<Unit, 6> kByteRateUnits = {
    {{"B/s", 1.0}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}, {"PB/s", 1e15}}};
constexpr std::array<Unit, 5> kSuffixes = {{{"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}}};

}  // namespace

std::string FormatDuration(Duration d) {
  return FormatScaled(static_cast<double>(d.ToNanos()), kTimeUnits, 3, 0, " ");
}

std::string FormatBytes(Bytes b) { return FormatScaled(b.ToBytes(), kByteUnits, 2, 0, " "); }

std::string FormatRate(FlopsPerSecond r) {
  return FormatScaled(r.ToFlopsPerSecond(), kFlopRateUnits, 2, 2, " ");
}

std::string FormatRate(BytesPerSecond r) {
  return FormatScaled(r.ToBytesPerSecond(), kByteRateUnits, 2, 2, " ");
}

std::string FormatRate(double per_second, std::string_view unit) {
  return fmt::format("{} {}", FormatScaled(per_second, kSuffixes, 2, 2, ""), unit);
}

std::string FormatPercent(double fraction, int decimals) {
  return fmt::format("{:.{}f}%", fraction * 100.0, decimals);
}

std::string FormatCount(int64_t n) {
  const uint64_t mag = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  std::string digits = fmt::format("{}", mag);
  std::string out = n < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string FormatLockedClock(std::optional<double> sm_clock_mhz) {
  return sm_clock_mhz ? fmt::format(" at a locked {:g} MHz SM clock", *sm_clock_mhz) : "";
}

}  // namespace dlsim::report
