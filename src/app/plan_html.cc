// `dlsim plan --html`: the search as charts (see plan_render.h).
#include <fmt/format.h>

#include <cctype>
#include <map>

#include "dlsim/app/plan_render.h"
#include "dlsim/app/train_render.h"
#include "dlsim/report/format.h"
#include "dlsim/report/svg_chart.h"

namespace dlsim::app {
namespace {

using XOf = double (*)(const plan::EvaluatedCandidate&);

double MemoryGiB(const plan::EvaluatedCandidate& c) {
  return c.eval.peak_memory_bytes / (1024.0 * 1024 * 1024);
}
double Gpus(const plan::EvaluatedCandidate& c) { return c.candidate.gpus; }

report::Series Points(const plan::PlanResult& r, XOf x, const std::string& name) {
  report::Series s{name};
  for (size_t i : r.ranking) s.x.push_back(x(r.evaluated[i])), s.y.push_back(r.evaluated[i].eval.step_time_s);
  return s;
}

report::Series Front(const plan::PlanResult& r, const std::vector<size_t>& front, XOf x) {
  report::Series s{"Pareto front"};
  for (size_t i : front) s.x.push_back(x(r.evaluated[i])), s.y.push_back(r.evaluated[i].eval.step_time_s);
  return s;
}

std::vector<report::Mark> Marks(const plan::PlanResult& r, XOf x) {
  std::vector<report::Mark> marks;
  if (const plan::EvaluatedCandidate* best = r.Best())
    marks.push_back({x(*best), best->eval.step_time_s, "best"});
  if (r.baseline && r.evaluated[*r.baseline].eval.feasible) {
    const auto& b = r.evaluated[*r.baseline];
    marks.push_back({x(b), b.eval.step_time_s, "scenario"});
  }
  return marks;
}

// `reason` with every number replaced by "#", so reasons that differ only in figures group. Digits inside a
// name ("h100-sxm5-80gb", "pp16") are part of the name and kept.
std::string Shape(const std::string& reason) {
  auto word = [&](size_t i) {
    return std::isalnum(static_cast<unsigned char>(reason[i])) || reason[i] == '_';
  };
  std::string out;
  for (size_t i = 0; i < reason.size(); ++i) {
    const bool in_name = i > 0 && (word(i - 1) || (reason[i - 1] == '-' && i > 1 && word(i - 2)));
    if (!std::isdigit(static_cast<unsigned char>(reason[i])) || in_name) {
      out += reason[i];
      continue;
    }
    while (i + 1 < reason.size() &&
           (std::isdigit(static_cast<unsigned char>(reason[i + 1])) || reason[i + 1] == '.'))
      ++i;
    out += '#';
  }
  return out;
}

std::string Pruned(const plan::PlanResult& r) {
  std::map<std::string, int> infeasible;
  for (const auto& c : r.evaluated)
    if (!c.eval.feasible) ++infeasible[Shape(c.eval.reason)];
  std::string out = fmt::format("pruned before simulation: {}\n", r.pruned_total);
  for (const auto& [reason, n] : r.pruned)
    if (n > 0) out += fmt::format("  {:>8}  {}\n", n, reason);
  out += "simulated and infeasible:\n";
  for (const auto& [reason, n] : infeasible) out += fmt::format("  {:>8}  {}\n", n, reason);
  return out;
}

// The best layout's step-time interval and how many of the feasible layouts tie with it, then how many fit
// at their predicted peak but not at the memory interval's upper end; "" without intervals.
std::string IntervalSummary(const plan::PlanResult& r, const plan::EvaluatedCandidate& best) {
  std::string out;
  if (r.unit_interval) {
    size_t ties = 0;
    for (size_t i : r.ranking) ties += &r.evaluated[i] != &best && r.TiesBest(r.evaluated[i]);
    out = fmt::format(
        " ({:.0f}% interval {} - {}, {}; {} other feasible layouts tie with it)",
        100 * r.unit_interval->level,
        report::FormatDuration(Duration::FromSeconds(best.eval.step_time_s * r.unit_interval->low_s)),
        report::FormatDuration(Duration::FromSeconds(best.eval.step_time_s * r.unit_interval->high_s)),
        IntervalRegimeLabel(*r.unit_interval), ties);
  }
  return out;
}

// How many feasible layouts may not fit on the real stack (plan::PlanResult::MemoryAtRisk).
std::string MemoryRiskSummary(const plan::PlanResult& r) {
  size_t risky = 0;
  for (size_t i : r.ranking) risky += r.MemoryAtRisk(r.evaluated[i]);
  return fmt::format(
      "{} of {} feasible layouts fit at their predicted peak but not at the {:.0f}% interval's "
      "upper end (x{:.3f}) of the usable {}",
      risky, r.Feasible(), 100 * r.unit_memory_interval->level, r.unit_memory_interval->high_gib,
      report::FormatBytes(ByteCount(r.usable_memory_bytes)));
}

}  // namespace

report::HtmlPage PlanHtml(const train::TrainOptions& base, const plan::PlanResult& r) {
  report::HtmlPage page("dlsim plan: " + base.model.name);
  std::vector<std::pair<std::string, std::string>> items{
      {"objective", std::string(plan::ObjectiveName(r.objective))},
      {"candidates", fmt::format("{} in the space, {} simulated, {} feasible", r.space_size,
                                 r.evaluated.size(), r.Feasible())}};
  if (const plan::EvaluatedCandidate* best = r.Best()) {
    items.emplace_back("best", plan::DescribeCandidate(best->candidate, true));
    items.emplace_back(
        "best step time",
        report::FormatDuration(Duration::FromSeconds(best->eval.step_time_s)) + IntervalSummary(r, *best));
  }
  if (r.unit_memory_interval) items.emplace_back("memory risk", MemoryRiskSummary(r));
  page.AddSummary(std::move(items));
  page.AddChart(
      "Step time against memory",
      report::ScatterChart(
          {.title = "Feasible candidates", .x = {"peak memory per GPU", "GiB"}, .y = {"step time", "s"}},
          {Points(r, MemoryGiB, "feasible candidate")}, {Front(r, r.pareto_memory, MemoryGiB)},
          Marks(r, MemoryGiB)),
      "Each dot is a simulated layout; the line joins those no other layout beats on both axes.");
  page.AddChart("Step time against GPUs",
                report::ScatterChart({.title = "Feasible candidates", .x = {"GPUs"}, .y = {"step time", "s"}},
                                     {Points(r, Gpus, "feasible candidate")}, {Front(r, r.pareto_gpus, Gpus)},
                                     Marks(r, Gpus)));
  page.AddText("Why the others were left out", Pruned(r));
  return page;
}

}  // namespace dlsim::app
