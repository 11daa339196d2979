// Reports of a planner run, in one place: the terminal report (counts, pruning reasons, top-k
// with why each differs from the best, Pareto fronts, the scenario's own rank), JSON and CSV.
// Printing only.
#ifndef DLSIM_APP_PLAN_RENDER_H_
#define DLSIM_APP_PLAN_RENDER_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "dlsim/plan/planner.h"
#include "dlsim/plan/search_space.h"
#include "dlsim/report/html_page.h"
#include "dlsim/train/options.h"

namespace dlsim::app {

// One candidate as JSON: {"parallel": {tp, pp, cp, dp, virtual_stages, micro_batch,
// pipeline_schedule, zero, recompute, sequence_parallel}, "gpus", "global_batch", "feasible",
// ["reason"], "step_time_s", "tokens_per_s_per_gpu", "mfu", "peak_memory_gib", "objective",
// "bottleneck"}.
nlohmann::ordered_json CandidateJson(const plan::EvaluatedCandidate& c);

// The run as one object: objective, best, top (top_k entries, each with "why"),
// evaluated, feasible, pruned {total, by_reason}, space_size, elapsed_s,
// backend, baseline, pareto {gpus, memory}, and, when `all`, "candidates"
// (every evaluated candidate, enumeration order).
nlohmann::ordered_json PlanJson(const plan::PlanResult& r, const plan::PlanOptions& options, bool all);

// Every evaluated candidate, one CSV row each (header first), enumeration
// order.
void WritePlanCsv(const plan::PlanResult& r, std::ostream& out);

// The HTML report (`dlsim plan --html`): step time against peak memory of every feasible
// candidate with the memory Pareto front, step time against GPUs with its front, the best
// layout and the scenario's own layout marked; infeasible candidates counted by reason.
report::HtmlPage PlanHtml(const train::TrainOptions& base, const plan::PlanResult& r);

// The terminal report.
void WritePlanReport(const train::TrainOptions& base, const plan::PlanOptions& options,
                     const plan::PlanResult& r, std::ostream& out);

}  // namespace dlsim::app

#endif  // DLSIM_APP_PLAN_RENDER_H_
