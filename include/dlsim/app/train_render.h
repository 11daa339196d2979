// The renderings of a training result, in one place: the terminal report and the JSON object
// of `dlsim train --json` (keys: docs/scenario-format.md, "Output"). Printing only.
#ifndef DLSIM_APP_TRAIN_RENDER_H_
#define DLSIM_APP_TRAIN_RENDER_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "dlsim/core/units.h"
#include "dlsim/report/html_page.h"
#include "dlsim/report/timeline_recorder.h"
#include "dlsim/train/options.h"
#include "dlsim/train/step_model.h"

namespace dlsim::validate {
struct TraceComparison;  // validate/trace_compare.h
}

namespace dlsim::app {

// Where a step-time interval comes from, as every rendering names it: its regime, flagged when the scenario
// is outside every validated regime (the interval is then widened; train/prediction_interval.h).
std::string IntervalRegimeLabel(const train::StepInterval& iv);

// `capacity` is the GPU's memory (the report's "capacity_bytes").
nlohmann::ordered_json TrainJson(const train::TrainOptions& options, const train::StepResult& r,
                                 Bytes capacity);

// Header, layout, step metrics, data-aware statistics, critical-path breakdown and memory per
// stage. An infeasible result prints its reason (and the rest only when a step time exists).
void WriteTrainReport(const train::TrainOptions& options, const train::StepResult& r, Bytes capacity,
                      std::ostream& out);

// The HTML report (`dlsim train --html`): key figures, the pipeline timeline per rank and
// stream from `timeline` (forward, backward, communication; gaps are bubbles), memory per
// pipeline rank as stacked bars against the GPU's capacity, and the critical-path breakdown.
report::HtmlPage TrainHtml(const train::TrainOptions& options, const train::StepResult& r, Bytes capacity,
                           const report::TimelineRecorder& timeline);

// `dlsim train --compare-trace STEP.json`: the trace's and dlsim's time per category (ms per step) with the
// difference, the largest difference in words, then what differs in structure (validate/trace_compare.h).
void WriteTraceComparison(const validate::TraceComparison& c, std::ostream& out);
// The same as the "compare_trace" object of `dlsim train --json --compare-trace`: {"file", "device", "rows":
// [{"category", "trace_ms", "dlsim_ms", "diff_pct"}], "largest", "notes"}.
nlohmann::ordered_json TraceComparisonJson(const validate::TraceComparison& c);

}  // namespace dlsim::app

#endif  // DLSIM_APP_TRAIN_RENDER_H_
