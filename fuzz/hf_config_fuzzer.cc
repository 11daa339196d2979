// Fuzz target: the Hugging Face config.json reader (`model: {hf_config: FILE}`, `dlsim catalog import`,
// io::ParseHfConfig), the way in issue 35 found aborting train, plan and catalog import.
//
// On success the model must be usable everywhere a catalog model is: its parameter count finite and positive,
// its `catalog import` entry read back by the catalog loader (the round trip `--catalog` relies on, giving
// the same shape), and a one-GPU scenario naming it checked as `dlsim train --check` does.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/hf_config.h"
#include "dlsim/io/train_scenario.h"
#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  auto spec = io::ParseHfConfig(fuzz::Text(data, size), "config.json", "fuzz-model");
  if (!spec.ok()) return 0;
  const double params = spec->ParameterCount();
  if (!std::isfinite(params) || params <= 0) fuzz::Fail("parameter count " + std::to_string(params));
  catalog::Catalogs cat = fuzz::Catalogs();
  const std::string entry = io::FormatModelCatalogEntry(*spec);
  if (auto st = io::MergeCatalogText(entry, "imported.yaml", cat); !st.ok())
    fuzz::Fail("catalog import wrote an entry --catalog refuses: " + st.error().message + "\n" + entry);
  auto back = cat.models.Find("fuzz-model");
  if (!back.ok() || (*back)->layers != spec->layers || (*back)->hidden != spec->hidden ||
      (*back)->moe.experts != spec->moe.experts)
    fuzz::Fail("the imported entry reads back as another shape:\n" + entry);
  auto options = io::ParseTrainScenario("model: {name: fuzz-model}\nhardware: {gpu: h100, gpus: 1}\n",
                                        "fuzz.yaml", cat.hardware, cat.models);
  if (options.ok()) (void)io::SummarizeTrainOptions(*options);
  return 0;
}
