// `dlsim train --html`: the step as charts (see train_render.h).
#include <fmt/format.h>

#include "dlsim/app/train_render.h"
#include "dlsim/report/format.h"
#include "dlsim/report/svg_chart.h"

namespace dlsim::app {
namespace {

constexpr size_t kMaxLanes = 48;  // 16 pipeline ranks x 3 streams

std::string Layout(const train::ParallelPlan& p) {
  return fmt::format("tp {} pp {} cp {} dp {}, {} micro-batches of {} x {} tokens{}", p.tp, p.pp, p.cp, p.dp,
                     p.micro_batches, p.micro_batch, p.seq_len,
                     p.chunks > 1 ? fmt::format(", {} chunks", p.chunks) : "");
}

// " (80% interval LOW - HIGH, REGIME)": how sure the step time is (train/prediction_interval.h).
std::string StepIntervalText(const train::StepResult& r) {
  if (!r.interval) return "";
  const train::StepInterval& iv = *r.interval;
  return fmt::format(" ({:.0f}% interval {} - {}, {})", 100 * iv.level,
                     report::FormatDuration(Duration::FromSeconds(iv.low_s)),
                     report::FormatDuration(Duration::FromSeconds(iv.high_s)), IntervalRegimeLabel(iv));
}

// The same for the peak memory.
std::string MemoryIntervalText(const train::StepResult& r) {
  if (!r.memory_interval) return "";
  const train::MemoryInterval& iv = *r.memory_interval;
  return fmt::format(", {:.0f}% interval {} - {}, {}", 100 * iv.level, report::FormatBytes(GiB(iv.low_gib)),
                     report::FormatBytes(GiB(iv.high_gib)), iv.regime);
}

void AddSummary(const train::TrainOptions& o, const train::StepResult& r, report::HtmlPage& page) {
  std::vector<std::pair<std::string, std::string>> items{{"model", o.model.name}, {"layout", Layout(r.plan)}};
  if (!r.feasible) items.emplace_back("infeasible", r.reason);
  if (r.step_time_s > 0) {
    items.emplace_back("step time",
                       report::FormatDuration(Duration::FromSeconds(r.step_time_s)) + StepIntervalText(r));
    items.emplace_back("tokens/s per GPU", fmt::format("{:.0f}", r.tokens_per_s_per_gpu));
    items.emplace_back("MFU", report::FormatPercent(r.mfu));
    items.emplace_back("bottleneck", r.bottleneck);
  }
  items.emplace_back("peak memory", report::FormatBytes(r.peak_memory) + " (rank " +
                                        std::to_string(r.peak_rank) + MemoryIntervalText(r) + ")");
  page.AddSummary(std::move(items));
}

std::string MemoryChart(const train::StepResult& r, Bytes capacity) {
  std::vector<std::string> ranks;
  std::vector<report::Series> stacks{
      {"weights"}, {"gradients"}, {"optimizer"}, {"activations"}, {"workspace"}};
  for (size_t i = 0; i < r.memory.size(); ++i) {
    const train::StageMemory& m = r.memory[i];
    ranks.push_back(std::to_string(i));
    const Bytes parts[] = {m.weights, m.gradients, m.optimizer, m.activations, m.workspace};
    for (size_t k = 0; k < stacks.size(); ++k) stacks[k].y.push_back(parts[k].ToGiB());
  }
  return report::StackedBarChart(
      {.title = fmt::format("Memory per pipeline rank (capacity {})", report::FormatBytes(capacity)),
       .x = {"pipeline rank"},
       .y = {"memory", "GiB"},
       .y_refs = {{capacity.ToGiB(), "GPU memory " + report::FormatBytes(capacity)}}},
      ranks, stacks);
}

std::string BreakdownChart(const train::Breakdown& b) {
  std::vector<std::string> parts{"compute", "TP comm",   "CP comm",     "PP bubble",
                                 "DP comm", "optimizer", "param gather"};
  std::vector<double> values{b.compute_s, b.tp_comm_s,   b.cp_comm_s,     b.pp_bubble_s,
                             b.dp_comm_s, b.optimizer_s, b.param_gather_s};
  if (b.ep_comm_s > 0) {  // MoE: the expert-parallel all-to-all
    parts.insert(parts.begin() + 3, "EP all-to-all");
    values.insert(values.begin() + 3, b.ep_comm_s);
  }
  if (b.contention_s > 0) {  // compute slowed by the collectives beside it
    parts.insert(parts.begin() + 1, "contention");
    values.insert(values.begin() + 1, b.contention_s);
  }
  report::Series s{"critical rank"};
  for (double v : values) s.y.push_back(v * 1e3);
  return report::StackedBarChart(
      {.title = "Critical-path breakdown of the step", .x = {"part"}, .y = {"time", "ms"}}, parts, {s});
}

}  // namespace

report::HtmlPage TrainHtml(const train::TrainOptions& options, const train::StepResult& r, Bytes capacity,
                           const report::TimelineRecorder& timeline) {
  report::HtmlPage page("dlsim train: " + options.model.name);
  AddSummary(options, r, page);
  if (timeline.spans_seen() > 0) {
    std::string caption = "Each bar is a kernel or a transfer; gaps on a compute lane are pipeline bubbles.";
    if (const std::string cut = timeline.Caption(kMaxLanes); !cut.empty()) caption += " Shown: " + cut + ".";
    page.AddChart("Pipeline timeline",
                  timeline.TimelineSvg(
                      {.title = "One step per pipeline rank and stream", .x = {"time", "ms"}, .y = {""}}, 1e3,
                      kMaxLanes),
                  caption);
  }
  if (!r.memory.empty()) page.AddChart("Memory", MemoryChart(r, capacity), "Per GPU of each pipeline rank.");
  if (r.step_time_s > 0)
    page.AddChart("Time breakdown", BreakdownChart(r.breakdown),
                  "Seconds of the step on the critical rank, by cause.");
  return page;
}

}  // namespace dlsim::app
