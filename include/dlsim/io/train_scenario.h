// Training scenarios (`dlsim train FILE`): YAML -> validated train::TrainOptions.
//
// The keys (model:, hardware:, training:, parallel:, seed:) are documented with their types,
// defaults and units in docs/scenario-format.md. Every error names the file, line and column
// of the offending key, its path, what was expected and what was found (see yaml_reader.h).
//
//   auto cat = io::LoadCatalogs({});
//   auto opts = io::LoadTrainScenarioFile("data/scenarios/default_train.yaml", cat->hardware, cat->models);
//   if (!opts.ok()) { std::cerr << opts.error().message << "\n"; return 1; }
//
// What is an error here: malformed YAML, unknown keys, wrong types, out-of-range values,
// unknown catalog names, and structural impossibilities (tp*pp*cp*dp != gpus, heads not
// divisible by tp, global batch not divisible by micro_batch*dp, layers_per_stage that do
// not add up, fp8 on a GPU without fp8). What is not: configurations that merely do not fit
// (out of memory) — the simulator reports those as infeasible results.
//
// On success every field is resolved: GPU, node and network names are canonical, the model is
// the catalog entry with overrides applied, and parallel.dp is set (never 0).
#ifndef DLSIM_IO_TRAIN_SCENARIO_H_
#define DLSIM_IO_TRAIN_SCENARIO_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/train/options.h"

namespace dlsim::io {

// Parses and validates a scenario. `file_name` is used in messages only. The catalogs are
// borrowed for the call. Error: kParse for malformed YAML or an empty file, kInvalidArgument
// otherwise; the message lists every error found, in file order (semantic checks run only once
// the keys and types are right). `extra_root_keys` are top-level keys another reader handles
// (the planner's `search:`); they are accepted and not read here.
Result<train::TrainOptions> ParseTrainScenario(std::string_view text, std::string file_name,
                                               const hw::Catalog& hardware, const model::ModelCatalog& models,
                                               const std::vector<std::string>& extra_root_keys = {});

// Reads `path` and parses it. A missing or unreadable file is a kNotFound error naming the path.
Result<train::TrainOptions> LoadTrainScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                                  const model::ModelCatalog& models);

// One line describing a resolved scenario, e.g.
// "llama3-8b on 8 x h100-sxm5-80gb (dgx-h100, ib-ndr); tp 1 pp 1 cp 1 dp 8; 1f1b; zero 1; ..."
std::string SummarizeTrainOptions(const train::TrainOptions& options);

// Scenario names of the enums (the values the YAML accepts) live with the enums.
using train::PipelineScheduleName;
using train::RecomputeName;

}  // namespace dlsim::io

#endif  // DLSIM_IO_TRAIN_SCENARIO_H_
