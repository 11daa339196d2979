// Fuzz target: the training scenario reader (`dlsim train FILE`, io::ParseTrainScenario).
//
// On success it does what `dlsim train --check` does (SummarizeTrainOptions), then checks the
// contract of io::FormatTrainScenarioYaml (the file `dlsim plan --best` writes): the resolved
// options written back as YAML parse again.
#include <cstddef>
#include <cstdint>

#include "dlsim/io/plan_scenario.h"
#include "dlsim/io/train_scenario.h"
#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const catalog::Catalogs& cat = fuzz::Catalogs();
  auto options =
      io::ParseTrainScenario(fuzz::Text(data, size), fuzz::ScenarioPath(), cat.hardware, cat.models);
  if (!options.ok()) return 0;
  (void)io::SummarizeTrainOptions(*options);
  const std::string again = io::FormatTrainScenarioYaml(*options, "fuzz round trip");
  auto reparsed = io::ParseTrainScenario(again, "round-trip.yaml", cat.hardware, cat.models);
  if (!reparsed.ok()) {
    fuzz::Fail("FormatTrainScenarioYaml wrote a scenario that does not parse:\n" + again + "\n" +
               reparsed.error().message);
  }
  return 0;
}
