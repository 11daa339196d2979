// Human-readable formatting of quantities for terminal reports. Each function picks the unit
// by magnitude, after rounding, so a value never prints as "1000.000" of a smaller unit:
//
//   FormatDuration(Nanos(999))          -> "999 ns"
//   FormatDuration(Nanos(1000))         -> "1.000 µs"
//   FormatDuration(Millis(1234))        -> "1.234 s"      (ns, µs, ms, s, min, h; 3 decimals)
//   FormatBytes(GiB(80))                -> "80.00 GiB"    (B, KiB, MiB, GiB, TiB, PiB; binary)
//   FormatRate(TFLOPS(989))             -> "989.00 TFLOP/s"
//   FormatRate(GBps(450))               -> "450.00 GB/s"  (decimal units, as vendors quote)
//   FormatRate(12345.0, "tokens/s")     -> "12.35k tokens/s"
//   FormatPercent(0.4567)               -> "45.7%"
//   FormatCount(1234567)                -> "1,234,567"
//   FormatLockedClock(1500.0)           -> " at a locked 1500 MHz SM clock"   (nullopt: "")
//
// Output is plain ASCII except "µs"; locale-independent; pure functions (thread-safe).
#ifndef DLSIM_REPORT_FORMAT_H_
#define DLSIM_REPORT_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dlsim/core/units.h"

namespace dlsim::report {

// Integer ns below 1 µs; otherwise 3 decimals in µs, ms, s, min or h. Negative values get "-".
std::string FormatDuration(Duration d);
// Whole bytes below 1 KiB; otherwise 2 decimals in KiB, MiB, GiB, TiB or PiB.
std::string FormatBytes(Bytes b);
// 2 decimals in FLOP/s, kFLOP/s, MFLOP/s, GFLOP/s, TFLOP/s, PFLOP/s or EFLOP/s.
std::string FormatRate(FlopsPerSecond r);
// 2 decimals in B/s, kB/s, MB/s, GB/s, TB/s or PB/s (powers of 1000).
std::string FormatRate(BytesPerSecond r);
// `per_second` with 2 decimals and a k, M, G or T suffix, then `unit`: "12.35k tokens/s".
std::string FormatRate(double per_second, std::string_view unit);
// `fraction` (0.5 = half) as a percentage with `decimals` decimals: "50.0%".
std::string FormatPercent(double fraction, int decimals = 1);
// Thousands separated by commas: "-1,234,567".
std::string FormatCount(int64_t n);
// The suffix a report's first line gives a GPU run at a locked SM clock (`hardware.sm_clock_mhz`): " at a
// locked N MHz SM clock", or "" when the clock is not locked.
std::string FormatLockedClock(std::optional<double> sm_clock_mhz);

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_FORMAT_H_
