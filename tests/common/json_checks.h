// Checks of a command's --json output that hold for every command: no number is negative, NaN or infinite
// (a sentinel such as -1 must be null), and every byte count (a key ending in "_bytes", or any number under
// a "bytes" object) is an exact integer.
#ifndef DLSIM_TESTS_COMMON_JSON_CHECKS_H_
#define DLSIM_TESTS_COMMON_JSON_CHECKS_H_

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace dlsim::testing {

inline void ExpectSaneJson(const nlohmann::json& j, const std::string& path = "", bool bytes = false) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      ExpectSaneJson(value, path + "." + key, key == "bytes" || key.ends_with("_bytes"));
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) ExpectSaneJson(j[i], path + "[" + std::to_string(i) + "]", bytes);
  } else if (j.is_number()) {
    const double v = j.get<double>();
    EXPECT_TRUE(std::isfinite(v) && v >= 0) << path << " = " << j.dump();
    if (bytes) {
      EXPECT_TRUE(j.is_number_integer()) << path << " = " << j.dump() << " (bytes are integers)";
    }
  }
}

}  // namespace dlsim::testing

#endif  // DLSIM_TESTS_COMMON_JSON_CHECKS_H_
