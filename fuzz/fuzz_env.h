// What the fuzz targets share: the input as text and the embedded catalogs, loaded once per
// process (read-only afterwards; each target copies what it mutates).
//
//   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
//     auto opts = io::ParseTrainScenario(fuzz::Text(data, size), fuzz::ScenarioPath(),
//     fuzz::Catalogs().hardware,
//                                        fuzz::Catalogs().models);
//     return 0;
//   }
//
// Contract of every target: any input returns normally; an error Result is a normal outcome. A
// crash, sanitizer report, abort or time-out is a bug (docs/robustness.md).
#ifndef DLSIM_FUZZ_FUZZ_ENV_H_
#define DLSIM_FUZZ_FUZZ_ENV_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/io/catalog_loader.h"

namespace dlsim::fuzz {

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Stops the process with a message: a broken invariant of the harness or of the code under test.
[[noreturn]] inline void Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz: %s\n", what.c_str());
  std::abort();
}

// The embedded catalogs and calibrations (io::LoadCatalogs({})), loaded on first use.
inline const catalog::Catalogs& Catalogs() {
  static const catalog::Catalogs kCatalogs = [] {
    auto c = io::LoadCatalogs({});
    if (!c.ok()) Fail("embedded catalogs do not load: " + c.error().message);
    return std::move(c).value();
  }();
  return kCatalogs;
}

// The file name scenarios are parsed under: a file in data/scenarios/ of the source tree, so that
// relative data-file paths in the seeds (../lengths/...) resolve as they do for the real files.
inline std::string ScenarioPath() { return std::string(DLSIM_FUZZ_DATA_DIR) + "/scenarios/fuzz-input.yaml"; }

}  // namespace dlsim::fuzz

#endif  // DLSIM_FUZZ_FUZZ_ENV_H_
