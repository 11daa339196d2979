#include "dlsim/report/json_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <limits>

namespace dlsim::report {
namespace {

// A copy of `j` with every double rounded.
nlohmann::ordered_json Rounded(const nlohmann::ordered_json& j, int digits) {
  if (j.is_number_float()) return RoundSignificant(j.get<double>(), digits);
  if (j.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& v : j) out.push_back(Rounded(v, digits));
    return out;
  }
  if (j.is_object()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [key, v] : j.items()) out[key] = Rounded(v, digits);
    return out;
  }
  return j;
}

}  // namespace

double RoundSignificant(double v, int digits) {
  if (!std::isfinite(v)) return v;
  if (v == 0.0) return 0.0;  // also turns -0 into 0
  digits = std::clamp(digits, 1, 17);
  std::string text = fmt::format("{:.{}e}", v, digits - 1);
  double rounded = v;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  return rounded == 0.0 ? 0.0 : rounded;
}

std::string DumpDeterministic(const nlohmann::ordered_json& j, int digits) {
  nlohmann::ordered_json rounded = Rounded(j, digits);
  std::string text = rounded.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  text.push_back('\n');
  return text;
}

nlohmann::ordered_json& JsonReport::Object(std::string_view key) {
  nlohmann::ordered_json& node = root_[std::string(key)];
  if (node.is_null()) node = nlohmann::ordered_json::object();
  assert(node.is_object());
  return node;
}

Status JsonReport::Write(std::ostream& out) const {
  std::string text = Dump();
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (!out) return Error::Internal("writing the JSON report failed");
  return Status::Ok();
}

nlohmann::ordered_json IntervalJson(double low, double high, double level, const std::string& regime,
                                    bool outside) {
  return {{"low", low},
          {"high", high},
          {"level", level},
          {"regime", regime},
          {"outside_validated_regimes", outside}};
}

int64_t JsonBytes(Bytes b) {
  const double v = b.ToBytes();
  if (!(v < 9.2e18)) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2e18) return std::numeric_limits<int64_t>::min();
  return std::llround(v);
}

}  // namespace dlsim::report
