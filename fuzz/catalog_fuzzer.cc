// Fuzz target: the catalog override reader (`--catalog FILE`, io::MergeCatalogText).
//
// The input is merged into a copy of the embedded catalogs, as LoadCatalogs does for a user file.
// On success every entry is looked up again by name and alias, and the embedded default scenario
// is read against the merged catalog, as `dlsim --catalog FILE train --default --check` does.
#include <cstddef>
#include <cstdint>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/embedded.h"
#include "dlsim/io/train_scenario.h"
#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  catalog::Catalogs cat = fuzz::Catalogs();
  if (!io::MergeCatalogText(fuzz::Text(data, size), "fuzz-catalog.yaml", cat).ok()) return 0;
  for (const std::string& name : cat.hardware.GpuNamesAndAliases()) (void)cat.hardware.FindGpu(name);
  for (const std::string& name : cat.hardware.NodeNames()) (void)cat.hardware.FindNode(name);
  for (const std::string& name : cat.hardware.NetworkNames()) (void)cat.hardware.FindNetwork(name);
  for (const std::string& name : cat.models.NamesAndAliases()) (void)cat.models.Find(name);
  auto options = io::ParseTrainScenario(embedded::DefaultTrainScenarioYaml(), "default_train.yaml (embedded)",
                                        cat.hardware, cat.models);
  if (options.ok()) (void)io::SummarizeTrainOptions(*options);
  return 0;
}
