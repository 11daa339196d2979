// `dlsim repro NAME --html`: the reproduction beside the paper (see repro_html.h).
#include "repro_html.h"

#include <fmt/format.h>

#include <algorithm>

#include "dlsim/report/svg_chart.h"
#include "dlsim/repro/verdict.h"

namespace dlsim::app {
namespace {

std::string HeadlineChart(const repro::ReproResult& r) {
  const report::Series headline{"headline", {}, {r.paper_ratio, r.our_ratio}};
  return report::StackedBarChart({.title = "Headline: the paper's and ours",
                                  .x = {"source"},
                                  .y = {"headline", "x"},
                                  .y_refs = {{r.paper_ratio * repro::kBandLow, "band low"},
                                             {r.paper_ratio * repro::kBandHigh, "band high"}}},
                                 {"paper", "dlsim"}, {headline});
}

std::string PointsChart(const std::vector<repro::ReproPoint>& points) {
  report::Series dots{"points (paper, dlsim)"};
  double lo = 0, hi = 0;
  for (const repro::ReproPoint& p : points) {
    if (!(p.paper > 0 && p.ours > 0)) continue;
    dots.x.push_back(p.paper), dots.y.push_back(p.ours);
    lo = dots.x.size() == 1 ? std::min(p.paper, p.ours) : std::min({lo, p.paper, p.ours});
    hi = std::max({hi, p.paper, p.ours});
  }
  const std::vector<report::Series> lines{{"dlsim = paper", {lo, hi}, {lo, hi}},
                                          {fmt::format("{}x the paper (band high)", repro::kBandHigh),
                                           {lo, hi},
                                           {lo * repro::kBandHigh, hi * repro::kBandHigh}},
                                          {fmt::format("{}x the paper (band low)", repro::kBandLow),
                                           {lo, hi},
                                           {lo * repro::kBandLow, hi * repro::kBandLow}}};
  return report::ScatterChart(
      {.title = "The paper's figure, point for point", .x = {"paper"}, .y = {"dlsim"}}, {dots}, lines, {});
}

}  // namespace

std::string VerdictLine(const repro::ReproResult& r) {
  const repro::Verdict v = repro::JudgeResult(r);
  if (v.status == repro::VerdictStatus::kNoClaim) return "no-claim (the paper states no number to compare)";
  const std::string line =
      fmt::format("{}: {:.3g}x the paper's (band [{}, {}])", repro::VerdictName(v.status), v.ratio_to_paper,
                  repro::kBandLow, repro::kBandHigh);
  return v.cause.empty() ? line : line + "; " + v.cause;
}

report::HtmlPage ReproHtml(const repro::ReproResult& r, const std::string& report_text) {
  report::HtmlPage page("dlsim repro: " + r.name);
  std::vector<std::pair<std::string, std::string>> items{{"claim", r.claim}};
  if (!r.operating_point.empty()) items.emplace_back("operating point", r.operating_point);
  items.emplace_back("workload", r.workload);
  items.emplace_back("baseline", r.baseline);
  items.emplace_back("paper", fmt::format("{:.3g}x", r.paper_ratio));
  items.emplace_back("dlsim", fmt::format("{:.3g}x", r.our_ratio));
  items.emplace_back("verdict", VerdictLine(r));
  page.AddSummary(std::move(items));
  if (r.paper_ratio > 0)
    page.AddChart("Headline", HeadlineChart(r), "Dashed: the band a reproduction must land in.");
  if (!r.points.empty())
    page.AddChart("Points", PointsChart(r.points),
                  fmt::format("{} points; points dlsim could not run are left out (the report says why).",
                              r.points.size()));
  page.AddText("Report", report_text);
  return page;
}

}  // namespace dlsim::app
