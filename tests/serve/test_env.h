// Shared set-up of the serving tests: catalogs, calibrations and the serve environment.
#ifndef DLSIM_TESTS_SERVE_TEST_ENV_H_
#define DLSIM_TESTS_SERVE_TEST_ENV_H_

#include <gtest/gtest.h>

#include <memory>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/serve/setup.h"

namespace dlsim::serve::testing {

struct TestEnv {
  catalog::Catalogs catalogs;
  std::unique_ptr<ServeEnvironment> env;
};

inline const TestEnv& Env() {
  static const TestEnv* e = [] {
    auto* t = new TestEnv;
    t->catalogs = std::move(io::LoadCatalogs({}).value());
    t->env = std::move(MakeServeEnvironment(io::LoadDefaultComputeCalibration().value(),
                                            io::LoadDefaultNetworkCalibration().value())
                           .value());
    return t;
  }();
  return *e;
}

inline ServeOptions BaseOptions(const std::string& model, const std::string& gpu, int tp = 1) {
  ServeOptions o;
  o.name = "test";
  o.model = *Env().catalogs.models.Find(model).value();
  o.gpu = *Env().catalogs.hardware.FindGpu(gpu).value();
  o.hardware.tp = tp;
  return o;
}

// A length distribution of one value.
inline LengthDistribution Fixed(double v) {
  LengthDistribution d;
  d.kind = LengthDistribution::Kind::kFixed;
  d.value = v;
  return d;
}

// One prompt of `t` tokens prefilled alone (causal pairs, one logit).
inline BatchShape OnePromptPrefill(int64_t t) {
  BatchShape b;
  b.prefill_tokens = t;
  b.prefill_pairs = static_cast<double>(t) * static_cast<double>(t + 1) / 2.0;
  b.prefill_requests = 1;
  b.logits = 1;
  return b;
}

// `yaml` read as the scenario file "s.yaml" (errors name it), with the catalogs and the registries' names.
inline Result<ServeOptions> ParseScenario(const std::string& yaml) {
  return io::ParseServeScenario(yaml, "s.yaml", Env().catalogs.hardware, Env().catalogs.models,
                                {Env().env->schedulers.Names(), Env().env->routers.Names()});
}

// One request of a 100-token prompt and `output` tokens arriving at 0 on one Llama-2-7B A100 replica, its
// record kept: the closed-form single-request cases.
inline ServeOptions OneRequest(int output) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.trace = {{0.0, 100, output}};
  o.keep_records = true;
  return o;
}

}  // namespace dlsim::serve::testing

#endif  // DLSIM_TESTS_SERVE_TEST_ENV_H_
