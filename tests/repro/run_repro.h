// Runs one registered reproduction with the built-in catalogs, for the end-to-end repro tests.
#ifndef DLSIM_TESTS_REPRO_RUN_REPRO_H_
#define DLSIM_TESTS_REPRO_RUN_REPRO_H_

#include <gtest/gtest.h>

#include <string>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/multitask_workload.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro::testing {

// The result of `dlsim repro NAME`; a failure to create or run it fails the calling test.
inline ReproResult RunRepro(const std::string& name) {
  static const catalog::Catalogs* const cat = new catalog::Catalogs(io::LoadCatalogs({}).value());
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto repro = reg.Create(name);
  EXPECT_TRUE(repro.ok());
  auto read_multitask = [](std::string_view yaml, const std::string& file_name) {
    return io::ParseMultitaskWorkloads(yaml, file_name, cat->hardware, cat->models);
  };
  Result<ReproResult> r = (*repro)->Run(ReproEnv{cat, "", {}, read_multitask});
  EXPECT_TRUE(r.ok()) << r.error().message;
  return *r;
}

// A numeric detail: row `row`'s value of `key`.
inline double At(const ReproResult& r, size_t row, const char* key) {
  return r.details[row][key].get<double>();
}

}  // namespace dlsim::repro::testing

#endif  // DLSIM_TESTS_REPRO_RUN_REPRO_H_
