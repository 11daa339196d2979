// Planner scenarios (`dlsim plan FILE`): a training scenario plus a `search:` section.
//
//   search:
//     tp: [1, 2, 4, 8]                 # each key a list of candidate values; keys not listed keep
//     pp: [1, 2, 4]                    # the scenario's value (dp: derived from the GPU count)
//     recompute: [none, selective, full]
//     top_k: 10
//     dominance: true
//     constraints:
//       gpus: [512, 1024]              # or min_gpus / max_gpus; default: hardware.gpus
//       tokens_per_step: 16777216      # token budget; default: training.global_batch is fixed
//       memory_headroom: 0.05          # fraction of GPU memory kept free
//       objective: step_time           # step_time | tokens_per_gpu_second | cost
//       gpu_hour_cost: 2.0             # for objective: cost
//
// The rest of the file is a training scenario, parsed and validated by ParseTrainScenario (it must be
// valid on its own: it is the layout the planner compares against). docs/planner.md.
#ifndef DLSIM_IO_PLAN_SCENARIO_H_
#define DLSIM_IO_PLAN_SCENARIO_H_

#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/plan/search_space.h"
#include "dlsim/train/options.h"

namespace dlsim::io {

// A search spanning more combinations than this is refused (the planner would run for days).
inline constexpr double kMaxSearchSpace = 1e8;

struct PlanScenario {
  train::TrainOptions base;
  plan::PlanOptions options;
};

// Parses and validates. Errors as ParseTrainScenario ("FILE:LINE:COL:
// search.tp[2]: ...").
Result<PlanScenario> ParsePlanScenario(std::string_view text, std::string file_name,
                                       const hw::Catalog& hardware, const model::ModelCatalog& models);
Result<PlanScenario> LoadPlanScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                          const model::ModelCatalog& models);

// A training scenario that ParseTrainScenario turns back into `o` (every key
// written explicitly; catalog models by name plus their shape; the data section, when there is one,
// as io::FormatDataSectionYaml writes it). `comment` lines
// go first, as "# ...".
std::string FormatTrainScenarioYaml(const train::TrainOptions& o, std::string_view comment);
// The `model:` section of a scenario naming `m`: its catalog name (unless custom) and every shape key.
std::string FormatModelSectionYaml(const model::ModelSpec& m);

}  // namespace dlsim::io

#endif  // DLSIM_IO_PLAN_SCENARIO_H_
