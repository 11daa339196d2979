// `dlsim validate --html`: predicted against measured, per set (see validate_html.h).
#include "validate_html.h"

#include <fmt/format.h>

#include "dlsim/core/strings.h"
#include "dlsim/report/svg_chart.h"

namespace dlsim::app {
namespace {

using validate::ValidationSet;

std::string MapeChart(const std::vector<ValidationSet>& sets) {
  std::vector<std::string> names;
  report::Series within{"MAPE, within its CI bound"}, over{"MAPE, over its CI bound"}, info{"MAPE, no bound"};
  for (const ValidationSet& s : sets) {
    names.push_back(s.name);
    const double m = s.Mape();
    const bool bound = s.bound_pct > 0;
    within.y.push_back(bound && m <= s.bound_pct ? m : 0);
    over.y.push_back(bound && m > s.bound_pct ? m : 0);
    info.y.push_back(bound ? 0 : m);
  }
  return report::StackedBarChart({.title = "Mean absolute error per set", .x = {"set"}, .y = {"MAPE", "%"}},
                                 names, {within, over, info});
}

// Signed error against the measured value: one dot per feasible row, the set's CI bound as dashed lines.
std::string SetChart(const ValidationSet& s) {
  report::Series rows{"rows (feasible)"};
  for (const validate::ValidationRow& r : s.rows) {
    if (!r.feasible) continue;
    rows.x.push_back(r.measured), rows.y.push_back(r.ErrorPct());
  }
  std::vector<report::RefLine> refs{{0, "exact"}};
  if (s.bound_pct > 0) {
    refs.push_back({s.bound_pct, fmt::format("+{:.0f}% (CI bound)", s.bound_pct)});
    refs.push_back({-s.bound_pct, fmt::format("-{:.0f}%", s.bound_pct)});
  }
  return report::ScatterChart(
      {.title = s.name, .x = {"measured", s.metric}, .y = {"error of the prediction", "%"}, .y_refs = refs},
      {rows}, {}, {});
}

}  // namespace

report::Table ValidationRowsTable(const ValidationSet& s) {
  report::Table t(s.name + ": " + s.source);
  t.AddColumn("row", "", report::Align::kLeft)
      .AddColumn("measured")
      .AddColumn("predicted")
      .AddColumn("error")
      .AddColumn("note", "", report::Align::kLeft);
  for (const auto& r : s.rows)
    t.AddRow({r.label, FormatNumber(r.measured, 5), FormatNumber(r.predicted, 5),
              fmt::format("{:+.1f}%", r.ErrorPct()), r.note});
  return t;
}

report::HtmlPage ValidateHtml(const std::vector<ValidationSet>& sets) {
  report::HtmlPage page("dlsim validate");
  size_t rows = 0, bounded = 0, within = 0;
  for (const ValidationSet& s : sets) {
    rows += s.rows.size();
    if (s.bound_pct <= 0) continue;
    ++bounded;
    within += s.Mape() <= s.bound_pct ? 1 : 0;
  }
  page.AddSummary({{"sets", std::to_string(sets.size())},
                   {"rows", std::to_string(rows)},
                   {"fit sets within their CI bound", fmt::format("{} of {}", within, bounded)}});
  page.AddChart(
      "Error per set", MapeChart(sets),
      "Fit sets are scored in-sample (their bound is asserted in CI); sets without a bound were not "
      "fitted on. `dlsim validate --cross-validate` gives the held-out error of the fit sets.");
  for (const ValidationSet& s : sets) {
    std::string source = s.source;
    while (!source.empty() && (source.back() == '.' || source.back() == ' ')) source.pop_back();
    page.AddChart(s.name, SetChart(s),
                  fmt::format("{}. {} rows, MAPE {:.2f}%, max |error| {:.1f}%; above 0: predicted too slow / "
                              "too large.",
                              source, s.rows.size(), s.Mape(), s.MaxAbsErrorPct()));
    page.AddText(s.name + ": rows", ValidationRowsTable(s).Render());
  }
  return page;
}

}  // namespace dlsim::app
