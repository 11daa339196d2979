// `dlsim gnn --html`: an epoch (or a --compare) as charts (see gnn_render.h).
#include <fmt/format.h>

#include "dlsim/app/gnn_render.h"
#include "dlsim/report/format.h"
#include "dlsim/report/svg_chart.h"

namespace dlsim::app {
namespace {

constexpr size_t kMaxLanes = 16;

void AddSummary(const gnn::GnnOptions& o, const gnn::GnnResult& r, report::HtmlPage& page) {
  std::vector<std::pair<std::string, std::string>> items{
      {"graph", fmt::format("{}: {} nodes, {} edges", r.graph_name, report::FormatCount(r.nodes),
                            report::FormatCount(r.edges))},
      {"deployment", fmt::format("{} x {} GPUs, {} sampler, batches of {}", r.machines, r.gpus_per_machine,
                                 r.sampler, o.batch_size)}};
  if (!r.feasible) items.emplace_back("infeasible", r.reason);
  items.emplace_back("epoch", report::FormatDuration(r.epoch));
  items.emplace_back("bottleneck", r.bottleneck);
  items.emplace_back("feature cache", fmt::format("{}: GPU hit ratio {}, host hit ratio {}", r.cache_policy,
                                                  report::FormatPercent(r.gpu_hit_ratio),
                                                  report::FormatPercent(r.host_hit_ratio)));
  page.AddSummary(std::move(items));
}

std::string StagesChart(const gnn::GnnResult& r) {
  std::vector<std::string> names;
  report::Series busy{"busy over the epoch"};
  for (const gnn::StageResult& s : r.stages) names.push_back(s.name), busy.y.push_back(s.busy.ToSeconds());
  return report::StackedBarChart({.title = "Busy time per pipeline stage (slowest machine)",
                                  .x = {"stage"},
                                  .y = {"busy", "s"},
                                  .y_refs = {{r.epoch.ToSeconds(), "epoch"}}},
                                 names, {busy});
}

std::string TierChart(const gnn::GnnResult& r) {
  report::Series gib{"feature bytes read"};
  for (Bytes b : {r.bytes.gpu, r.bytes.nvlink, r.bytes.host, r.bytes.remote, r.bytes.disk})
    gib.y.push_back(b.ToGiB());
  return report::StackedBarChart(
      {.title = "Node features read per tier (all machines)", .x = {"tier"}, .y = {"bytes", "GiB"}},
      {"own GPU", "peer GPU (NVLink)", "host", "remote", "disk"}, {gib});
}

}  // namespace

report::HtmlPage GnnHtml(const gnn::GnnOptions& options, const gnn::GnnResult& r,
                         const report::TimelineRecorder& timeline) {
  report::HtmlPage page("dlsim gnn: " + options.name);
  AddSummary(options, r, page);
  page.AddChart("Pipeline stages", StagesChart(r),
                "The dashed line is the epoch: a stage that reaches it is the bottleneck.");
  if (timeline.spans_seen() > 0) {
    std::string caption = "The first mini-batches through each stage of the slowest machine.";
    if (const std::string cut = timeline.Caption(kMaxLanes); !cut.empty()) caption += " Shown: " + cut + ".";
    page.AddChart("Pipeline timeline",
                  timeline.TimelineSvg({.title = "Stages over time", .x = {"time", "ms"}, .y = {"stage"}},
                                       1e3, kMaxLanes),
                  caption);
  }
  page.AddChart("Feature reads", TierChart(r));
  if (!r.split_curve.empty()) {
    report::Series curve{"predicted pages"};
    for (const auto& [share, pages] : r.split_curve) curve.x.push_back(share * 100), curve.y.push_back(pages);
    page.AddChart("Memory split between topology and features",
                  report::LineChart({.title = "Disk pages of the pre-sampled epoch",
                                     .x = {"memory given to the topology cache", "%"},
                                     .y = {"pages"}},
                                    {curve}));
  }
  page.AddText("Report", FormatGnnReport(options, r));
  return page;
}

report::HtmlPage GnnCompareHtml(const std::string& name, const std::vector<gnn::GnnVariant>& variants,
                                const std::vector<gnn::GnnResult>& results) {
  report::HtmlPage page("dlsim gnn --compare: " + name);
  std::vector<std::string> names;
  report::Series epoch{"epoch"}, hit{"GPU cache hit ratio"};
  for (size_t i = 0; i < results.size(); ++i) {
    names.push_back(variants[i].name);
    epoch.y.push_back(results[i].feasible ? results[i].epoch.ToSeconds() : 0);
    hit.y.push_back(results[i].gpu_hit_ratio * 100);
  }
  page.AddChart("Epoch time",
                report::StackedBarChart({.title = "Epoch per variant", .x = {"variant"}, .y = {"epoch", "s"}},
                                        names, {epoch}),
                "An infeasible variant draws no bar; the table says why.");
  page.AddChart(
      "Feature cache",
      report::StackedBarChart(
          {.title = "GPU feature-cache hit ratio", .x = {"variant"}, .y = {"hit ratio", "%"}}, names, {hit}));
  page.AddText("Variants", FormatGnnCompare(variants, results));
  return page;
}

}  // namespace dlsim::app
