// Builds a JSON report object and writes it with deterministic bytes.
//
// Keys keep their insertion order (nlohmann::ordered_json). On output, doubles are rounded to
// a fixed number of significant digits (9 by default) so that floating-point noise in the
// last bits (summation order, fused multiply-add) does not change the file; -0 becomes 0,
// NaN and infinities become null, invalid UTF-8 becomes U+FFFD, indentation is two spaces
// and the text ends with a newline.
//
//   dlsim::report::JsonReport report;
//   report.Set("feasible", true).Set("step_time_s", step.ToSeconds());
//   report.Object("memory")["peak_bytes_per_gpu"] = peak.ToBytes();
//   DLSIM_RETURN_IF_ERROR(report.Write(std::cout));
//
// A value type; not thread-safe for concurrent mutation.
#ifndef DLSIM_REPORT_JSON_REPORT_H_
#define DLSIM_REPORT_JSON_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"

namespace dlsim::report {

// Default number of significant digits kept for doubles in reports.
inline constexpr int kReportDigits = 9;

// `v` rounded to `digits` significant digits (1..17), as the nearest double. -0 becomes 0;
// non-finite values are returned unchanged. Locale-independent.
double RoundSignificant(double v, int digits);

// `j` as text: doubles rounded with RoundSignificant(v, digits), 2-space indent, trailing
// newline. Never throws.
std::string DumpDeterministic(const nlohmann::ordered_json& j, int digits = kReportDigits);

// A byte count as an exact JSON integer (rounded to the nearest byte; clamped to int64), so
// 80 GiB reads 85899345920, not the 9-digit float 85899345900.0.
int64_t JsonBytes(Bytes b);

// A prediction interval as every command writes it: {low, high, level, regime, outside_validated_regimes}
// (train's step_time_interval_s, serve's tpot_mean_interval_s).
nlohmann::ordered_json IntervalJson(double low, double high, double level, const std::string& regime,
                                    bool outside);

class JsonReport {
 public:
  explicit JsonReport(int digits = kReportDigits) : digits_(digits) {}

  nlohmann::ordered_json& root() { return root_; }
  const nlohmann::ordered_json& root() const { return root_; }

  // Sets root[key] = value (replacing an existing key in place). Returns *this.
  template <typename T>
  JsonReport& Set(std::string_view key, T&& value) {
    root_[std::string(key)] = std::forward<T>(value);
    return *this;
  }
  // root[key], created as an empty object when absent. Precondition: if present, it is an
  // object.
  nlohmann::ordered_json& Object(std::string_view key);

  // The report as deterministic text (see DumpDeterministic).
  std::string Dump() const { return DumpDeterministic(root_, digits_); }
  // Writes Dump() to `out` and flushes. Fails if the stream fails.
  Status Write(std::ostream& out) const;

 private:
  nlohmann::ordered_json root_ = nlohmann::ordered_json::object();
  int digits_;
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_JSON_REPORT_H_
