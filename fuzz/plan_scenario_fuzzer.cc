// Fuzz target: the planner scenario reader (`dlsim plan FILE`, io::ParsePlanScenario).
//
// `dlsim plan` has no --check; what follows the parse is the search itself, which is not cheap
// (and whose size is the scenario's to choose). On success this target summarises the base
// layout and writes it as the best-layout scenario (io::FormatTrainScenarioYaml, as `--best` does).
#include <cstddef>
#include <cstdint>

#include "dlsim/io/plan_scenario.h"
#include "dlsim/io/train_scenario.h"
#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const catalog::Catalogs& cat = fuzz::Catalogs();
  auto scenario =
      io::ParsePlanScenario(fuzz::Text(data, size), fuzz::ScenarioPath(), cat.hardware, cat.models);
  if (!scenario.ok()) return 0;
  (void)io::SummarizeTrainOptions(scenario->base);
  (void)io::FormatTrainScenarioYaml(scenario->base, "fuzz");
  return 0;
}
