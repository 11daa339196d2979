// What the planner searches: candidate values per parallel key, and the
// constraints every candidate must meet. Plain structs; io/plan_scenario.h
// fills them from a scenario's `search:` section (docs/planner.md).
//
//   plan::PlanOptions opts;
//   opts.space.tp = {1, 2, 4, 8};
//   opts.space.recompute = {train::Recompute::kNone, train::Recompute::kFull};
//   opts.constraints.objective = plan::Objective::kStepTime;
//
// An empty list means "keep the scenario's value" (dp: derive it as gpus / (tp
// * pp * cp)).
#ifndef DLSIM_PLAN_SEARCH_SPACE_H_
#define DLSIM_PLAN_SEARCH_SPACE_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "dlsim/train/options.h"

namespace dlsim::plan {

struct SearchSpace {
  std::vector<int> tp, pp, cp, dp, micro_batch, virtual_stages, zero;
  std::vector<int> ep;  // expert-parallel sizes (MoE models; parallel.etp is kept)
  std::vector<train::Recompute> recompute;
  std::vector<train::PipelineScheduleKind> pipeline_schedule;
  std::vector<bool> sequence_parallel;
};

enum class Objective {
  kStepTime,            // minimise the step time (normalised to the token target, see
                        // below)
  kTokensPerGpuSecond,  // maximise tokens / s / GPU
  kCost,                // minimise GPU-hour cost per million tokens (whole nodes are billed)
};
std::string_view ObjectiveName(Objective o);  // "step_time" | "tokens_per_gpu_second" | "cost"

struct Constraints {
  // GPU counts to consider. Empty gpus and gpus_min == 0: the scenario's count.
  // A list: those counts. A range [gpus_min, gpus_max]: every count tp*pp*cp*dp
  // inside it that is a whole number of nodes (or at most one node).
  std::vector<int> gpus;
  int gpus_min = 0, gpus_max = 0;
  // Token budget per step: when set, each candidate's global batch is the
  // largest multiple of micro_batch * dp with global_batch * seq_len <=
  // tokens_per_step. Otherwise the scenario's global batch is fixed.
  std::optional<int64_t> tokens_per_step;
  // Fraction of each GPU's memory that must stay free (0 <= headroom < 1).
  double memory_headroom = 0;
  Objective objective = Objective::kStepTime;
  double gpu_hour_cost = 1.0;  // price of one GPU-hour for kCost (currency of the user's choice)
};

struct PlanOptions {
  SearchSpace space;
  Constraints constraints;
  int top_k = 10;
  // Skip heavier recomputation when a lighter mode of the same layout fits
  // (sound: with the static per-stream orders of the simulator, recomputation
  // only adds work). Off: evaluate all.
  bool dominance = true;
};

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_SEARCH_SPACE_H_
