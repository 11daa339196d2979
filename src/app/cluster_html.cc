// `dlsim cluster --html`: the run (or the --compare runs) as charts (see cluster_render.h).
#include <fmt/format.h>

#include "dlsim/app/cluster_render.h"
#include "dlsim/report/format.h"
#include "dlsim/report/svg_chart.h"

namespace dlsim::app {
namespace {

constexpr size_t kMaxPoints = 2000;
constexpr double kHour = 3600.0;

// One series per policy of `value` over the utilisation samples, x in hours.
std::vector<report::Series> OverTime(const std::vector<cluster::ClusterResult>& results,
                                     double (*value)(const cluster::UtilSample&)) {
  std::vector<report::Series> out;
  for (const cluster::ClusterResult& r : results) {
    report::Series s{.name = r.policy, .step = true};
    for (const cluster::UtilSample& u : r.utilisation) s.x.push_back(u.t_s / kHour), s.y.push_back(value(u));
    out.push_back(report::Thin(s, kMaxPoints));
  }
  return out;
}

double Busy(const cluster::UtilSample& u) { return u.busy_gpus; }
double Waiting(const cluster::UtilSample& u) { return static_cast<double>(u.waiting); }

std::vector<report::Series> JctCdfs(const std::vector<cluster::ClusterResult>& results) {
  std::vector<report::Series> out;
  for (const cluster::ClusterResult& r : results) {
    std::vector<double> jct;
    for (const cluster::JobRecord& j : r.jobs)
      if (j.completed) jct.push_back(j.jct_s / kHour);
    out.push_back(report::Cdf(r.policy, std::move(jct)));
  }
  return out;
}

}  // namespace

report::HtmlPage ClusterHtml(const std::string& title, const std::vector<cluster::ClusterResult>& results) {
  report::HtmlPage page("dlsim cluster: " + title);
  std::vector<std::pair<std::string, std::string>> items;
  for (const cluster::ClusterResult& r : results) {
    const cluster::ClusterSummary& s = r.summary;
    items.emplace_back(
        r.policy + " / " + r.placement,
        fmt::format("{} of {} jobs completed, mean JCT {:.3g} h, p99 {:.3g} h, {} GPUs", s.completed, s.jobs,
                    s.jct_s.mean / kHour, s.jct_s.p99 / kHour, r.total_gpus));
  }
  page.AddSummary(std::move(items));
  page.AddChart("GPU utilisation over time",
                report::LineChart({.title = "Busy GPUs", .x = {"time", "h"}, .y = {"busy GPUs"}},
                                  OverTime(results, Busy)),
                "Mean busy GPUs over each sampling interval.");
  page.AddChart("Queue length over time",
                report::LineChart({.title = "Jobs waiting", .x = {"time", "h"}, .y = {"jobs"}},
                                  OverTime(results, Waiting)));
  page.AddChart(
      "Job completion time",
      report::LineChart(
          {.title = "JCT CDF", .x = {"job completion time", "h"}, .y = {"fraction of jobs"}, .log_x = true},
          JctCdfs(results)),
      "All completed jobs (the summary's percentiles count only the measured ones); log axis: JCTs span "
      "minutes to months.");
  return page;
}

}  // namespace dlsim::app
