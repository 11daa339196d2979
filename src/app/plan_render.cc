// Reports of a planner run (dlsim plan): terminal, JSON and CSV.
#include "dlsim/app/plan_render.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "dlsim/app/train_render.h"
#include "dlsim/core/strings.h"
#include "dlsim/report/table.h"

namespace dlsim::app {
namespace {

using plan::Candidate;
using plan::CandidateOf;
using plan::DescribeCandidate;
using plan::EvaluatedCandidate;
using plan::Objective;
using plan::PlanOptions;
using plan::PlanResult;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const char* ObjectiveUnit(Objective o) {
  switch (o) {
    case Objective::kStepTime:
      return "s";
    case Objective::kTokensPerGpuSecond:
      return "tokens/s/GPU";
    case Objective::kCost:
      return "per 1M tokens";
  }
  return "";
}

std::string Pareto(const PlanResult& r, const std::vector<size_t>& front) {
  std::string out;
  for (size_t i : front) {
    const EvaluatedCandidate& c = r.evaluated[i];
    out += fmt::format("  {:>6} GPUs  {:>8.2f} GiB  {:>10.4f} s  {}\n", c.candidate.gpus,
                       c.eval.peak_memory_bytes / kGiB, c.eval.step_time_s, DescribeCandidate(c.candidate));
  }
  return out;
}

// The pruning reasons that pruned something, with their counts.
report::Table PrunedTable(const PlanResult& r) {
  report::Table pruned("Pruned before simulation");
  pruned.AddColumn("reason", "", report::Align::kLeft).AddColumn("candidates");
  for (const auto& [reason, n] : r.pruned)
    if (n > 0) pruned.AddRow({reason, std::to_string(n)});
  return pruned;
}

constexpr size_t kReportWidth = 120;  // terminal columns the report's text lines are wrapped to

// The top_k feasible candidates, best first.
std::vector<const EvaluatedCandidate*> TopCandidates(const PlanResult& r, const PlanOptions& options) {
  std::vector<const EvaluatedCandidate*> top;
  for (size_t k = 0; k < r.ranking.size() && k < static_cast<size_t>(options.top_k); ++k)
    top.push_back(&r.evaluated[r.ranking[k]]);
  return top;
}

// Whether the objective needs a column of its own: the cost always; the step time when the token
// target scales it; never tokens/s/GPU (the column already shown).
bool ObjectiveColumn(const std::vector<const EvaluatedCandidate*>& top, Objective objective) {
  if (objective == Objective::kCost) return true;
  if (objective != Objective::kStepTime) return false;
  return std::any_of(top.begin(), top.end(), [](const EvaluatedCandidate* c) {
    return std::abs(c->objective - c->eval.step_time_s) > 1e-12 * std::abs(c->eval.step_time_s);
  });
}

// The top_k feasible candidates by rank (why each is not first follows the table: WriteWhyNotFirst).
report::Table TopTable(const PlanResult& r, const std::vector<const EvaluatedCandidate*>& top) {
  const bool objective = ObjectiveColumn(top, r.objective);
  report::Table t(
      fmt::format("Top {} by {} ({})", top.size(), ObjectiveName(r.objective), ObjectiveUnit(r.objective)));
  t.AddColumn("#")
      .AddColumn("gpus")
      .AddColumn("layout", "", report::Align::kLeft)
      .AddColumn("step", "s")
      .AddColumn("tokens/s/GPU")
      .AddColumn("MFU")
      .AddColumn("peak", "GiB");
  if (objective) t.AddColumn(r.objective == Objective::kCost ? "cost per 1M tokens" : "step at target (s)");
  for (size_t k = 0; k < top.size(); ++k) {
    const EvaluatedCandidate& c = *top[k];
    std::vector<std::string> row = {std::to_string(k + 1),
                                    std::to_string(c.candidate.gpus),
                                    DescribeCandidate(c.candidate),
                                    FormatNumber(c.eval.step_time_s, 5),
                                    FormatNumber(c.eval.tokens_per_s_per_gpu, 5),
                                    fmt::format("{:.1f}%", 100 * c.eval.mfu),
                                    FormatNumber(c.eval.peak_memory_bytes / kGiB, 4)};
    if (objective) row.push_back(FormatNumber(c.objective, 5));
    t.AddRow(std::move(row));
  }
  return t;
}

// Writes the best layout's step-time interval and the rows of the top table that tie with it (their
// intervals overlap the best's: the model cannot rank them).
void WriteTies(const PlanResult& r, const std::vector<const EvaluatedCandidate*>& top, std::ostream& out) {
  if (!r.unit_interval || top.empty()) return;
  const train::StepInterval& u = *r.unit_interval;
  const double best = top[0]->eval.step_time_s;
  std::vector<std::string> ties;
  for (size_t k = 1; k < top.size(); ++k)
    if (r.TiesBest(*top[k])) ties.push_back("#" + std::to_string(k + 1));
  std::string line =
      fmt::format("{:.0f}% interval of #1: {}-{} s ({}); ", 100 * u.level, FormatNumber(best * u.low_s, 4),
                  FormatNumber(best * u.high_s, 4), IntervalRegimeLabel(u));
  line +=
      ties.empty() ? "no other row ties with it" : "ties with it (intervals overlap): " + Join(ties, ", ");
  out << WrapText(line, kReportWidth, 2) << "\n";
}

// Writes the peak-memory interval (one ratio for every layout) and the rows of the top table, and the
// scenario's own layout, that fit at their predicted peak but not at the interval's upper end.
void WriteMemoryRisk(const PlanResult& r, const std::vector<const EvaluatedCandidate*>& top,
                     std::ostream& out) {
  if (!r.unit_memory_interval || top.empty()) return;
  const train::MemoryInterval& u = *r.unit_memory_interval;
  std::vector<std::string> risky;
  for (size_t k = 0; k < top.size(); ++k)
    if (r.MemoryAtRisk(*top[k])) risky.push_back("#" + std::to_string(k + 1));
  if (r.baseline && r.MemoryAtRisk(r.evaluated[*r.baseline])) risky.push_back("the scenario's own layout");
  std::string line = fmt::format("{:.0f}% interval of peak memory: x{:.3f}-{:.3f} ({}); ", 100 * u.level,
                                 u.low_gib, u.high_gib, u.regime);
  line += risky.empty() ? fmt::format("every row fits the usable {} GiB at its upper end",
                                      FormatNumber(r.usable_memory_bytes / kGiB, 4))
                        : fmt::format("may not fit the usable {} GiB at its upper end: {}",
                                      FormatNumber(r.usable_memory_bytes / kGiB, 4), Join(risky, ", "));
  out << WrapText(line, kReportWidth, 2) << "\n";
}

// Writes, for each row of the top table after the first, why it is not first (its gap, the component
// that grew most, the keys that differ), wrapped to kReportWidth.
void WriteWhyNotFirst(const std::vector<const EvaluatedCandidate*>& top, Objective objective,
                      std::ostream& out) {
  if (top.size() < 2) return;
  out << "Why not first:\n";
  for (size_t k = 1; k < top.size(); ++k) {
    const std::string line = fmt::format("  #{} {}", k + 1, WhyDifferent(*top[0], *top[k], objective));
    out << WrapText(line, kReportWidth, 6) << "\n";
  }
}

// Writes where the scenario's own layout landed: its rank, why it is infeasible, or that it was not searched.
void WriteBaselineLine(const train::TrainOptions& base, const PlanResult& r, const EvaluatedCandidate& best,
                       std::ostream& out) {
  std::string line = "Scenario's own layout (" + DescribeCandidate(CandidateOf(base), true) + "): ";
  if (r.baseline_rank) {
    const EvaluatedCandidate& b = r.evaluated[*r.baseline];
    line += fmt::format("rank {} of {} feasible, {:.4g} s per step ({})", *r.baseline_rank, r.Feasible(),
                        b.eval.step_time_s, WhyDifferent(best, b, r.objective));
  } else if (r.baseline) {
    line += "infeasible: " + r.evaluated[*r.baseline].eval.reason;
  } else {
    line += "not among the candidates (outside the search space or pruned)";
  }
  out << "\n" << WrapText(line, kReportWidth, 2) << "\n";
}

// A feasible candidate's peak-memory interval and whether its upper end exceeds the usable memory.
void AddMemoryInterval(const PlanResult& r, const EvaluatedCandidate& c, nlohmann::ordered_json& e) {
  if (!r.unit_memory_interval || !c.eval.feasible) return;
  e["peak_memory_interval_gib"] = {c.eval.peak_memory_bytes / kGiB * r.unit_memory_interval->low_gib,
                                   c.eval.peak_memory_bytes / kGiB * r.unit_memory_interval->high_gib};
  e["memory_at_risk"] = r.MemoryAtRisk(c);
}

// The top_k feasible candidates by rank, each with why it is not first.
nlohmann::ordered_json TopJson(const PlanResult& r, const PlanOptions& options) {
  nlohmann::ordered_json top = nlohmann::ordered_json::array();
  for (size_t k = 0; k < r.ranking.size() && k < static_cast<size_t>(options.top_k); ++k) {
    const EvaluatedCandidate& c = r.evaluated[r.ranking[k]];
    nlohmann::ordered_json e = CandidateJson(c);
    if (r.unit_interval) {
      e["step_time_interval_s"] = {c.eval.step_time_s * r.unit_interval->low_s,
                                   c.eval.step_time_s * r.unit_interval->high_s};
      e["tie_with_best"] = r.TiesBest(c);
    }
    AddMemoryInterval(r, c, e);
    e["why"] = WhyDifferent(*r.Best(), c, r.objective);
    top.push_back(e);
  }
  return top;
}

// The pruned total and the count of every reason.
nlohmann::ordered_json PrunedJson(const PlanResult& r) {
  nlohmann::ordered_json pruned;
  pruned["total"] = r.pruned_total;
  nlohmann::ordered_json by = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : r.pruned) by[reason] = n;
  pruned["by_reason"] = by;
  return pruned;
}

// The scenario's own layout with its rank (null when infeasible); null when it was not evaluated.
nlohmann::ordered_json BaselineJson(const PlanResult& r) {
  nlohmann::ordered_json base;
  if (r.baseline) {
    base = CandidateJson(r.evaluated[*r.baseline]);
    base["rank"] =
        r.baseline_rank ? nlohmann::ordered_json(*r.baseline_rank) : nlohmann::ordered_json(nullptr);
    AddMemoryInterval(r, r.evaluated[*r.baseline], base);
  }
  return base;
}

// The Pareto fronts of step time against GPUs and against peak memory.
nlohmann::ordered_json ParetoJson(const PlanResult& r) {
  nlohmann::ordered_json pareto;
  for (const auto& [name, front] :
       {std::pair{"gpus", &r.pareto_gpus}, std::pair{"memory", &r.pareto_memory}}) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (size_t i : *front) list.push_back(CandidateJson(r.evaluated[i]));
    pareto[name] = list;
  }
  return pareto;
}

}  // namespace

nlohmann::ordered_json CandidateJson(const EvaluatedCandidate& c) {
  nlohmann::ordered_json j, par;
  const auto fields = CandidateFields(c.candidate);
  for (const auto& [key, value] : fields) {
    if (key == "gpus" || key == "global_batch") continue;
    if (key == "pipeline_schedule" || key == "recompute") {
      par[key] = value;
    } else if (key == "sequence_parallel") {
      par[key] = value == "true";
    } else {
      par[key] = std::stoi(value);
    }
  }
  j["parallel"] = par;
  j["gpus"] = c.candidate.gpus;
  j["global_batch"] = c.candidate.global_batch;
  j["feasible"] = c.eval.feasible;
  if (!c.eval.feasible) j["reason"] = c.eval.reason;
  j["step_time_s"] = c.eval.step_time_s;
  j["tokens_per_s_per_gpu"] = c.eval.tokens_per_s_per_gpu;
  j["mfu"] = c.eval.mfu;
  j["peak_memory_gib"] = c.eval.peak_memory_bytes / kGiB;
  j["objective"] = c.objective;
  j["bottleneck"] = c.eval.bottleneck;
  return j;
}

nlohmann::ordered_json PlanJson(const PlanResult& r, const PlanOptions& options, bool all) {
  nlohmann::ordered_json j;
  j["objective"] = ObjectiveName(r.objective);
  j["best"] = r.Best() ? CandidateJson(*r.Best()) : nlohmann::ordered_json(nullptr);
  j["top"] = TopJson(r, options);
  j["evaluated"] = r.evaluated.size();
  j["feasible"] = r.Feasible();
  j["pruned"] = PrunedJson(r);
  j["space_size"] = r.space_size;
  j["elapsed_s"] = r.elapsed_s;
  j["backend"] = r.backend;
  j["usable_memory_gib"] = r.usable_memory_bytes / kGiB;
  j["baseline"] = BaselineJson(r);
  j["pareto"] = ParetoJson(r);
  if (all) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& c : r.evaluated) list.push_back(CandidateJson(c));
    j["candidates"] = list;
  }
  return j;
}

void WritePlanCsv(const PlanResult& r, std::ostream& out) {
  const auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  for (const auto& [key, value] : CandidateFields(Candidate{})) out << key << ",";
  out << "feasible,step_time_s,tokens_per_s_per_gpu,mfu,peak_memory_gib,"
         "objective,rank,reason\n";
  std::vector<size_t> rank(r.evaluated.size(), 0);
  for (size_t k = 0; k < r.ranking.size(); ++k) rank[r.ranking[k]] = k + 1;
  for (size_t i = 0; i < r.evaluated.size(); ++i) {
    const EvaluatedCandidate& c = r.evaluated[i];
    for (const auto& [key, value] : CandidateFields(c.candidate)) out << value << ",";
    out << (c.eval.feasible ? "true" : "false") << "," << fmt::format("{:.9g}", c.eval.step_time_s) << ","
        << fmt::format("{:.9g}", c.eval.tokens_per_s_per_gpu) << "," << fmt::format("{:.6g}", c.eval.mfu)
        << "," << fmt::format("{:.6g}", c.eval.peak_memory_bytes / kGiB) << ","
        << fmt::format("{:.9g}", c.objective) << "," << (rank[i] ? std::to_string(rank[i]) : "") << ","
        << quote(c.eval.reason) << "\n";
  }
}

void WritePlanReport(const train::TrainOptions& base, const PlanOptions& options, const PlanResult& r,
                     std::ostream& out) {
  out << fmt::format(
      "Search space: {} combinations; {} pruned before "
      "simulation, {} simulated ({} feasible) "
      "in {:.2f} s on {}\n",
      r.space_size, r.pruned_total, r.evaluated.size(), r.Feasible(), r.elapsed_s, r.backend);
  out << "\n" << PrunedTable(r);
  const EvaluatedCandidate* best = r.Best();
  if (best == nullptr) {
    out << "\nNo feasible configuration.";
    if (!r.evaluated.empty()) out << " First reason: " << r.evaluated.front().eval.reason;
    out << "\n";
    return;
  }
  const std::vector<const EvaluatedCandidate*> top = TopCandidates(r, options);
  out << "\n" << TopTable(r, top);
  WriteTies(r, top, out);
  WriteMemoryRisk(r, top, out);
  WriteWhyNotFirst(top, r.objective, out);
  out << "\nPareto front, step time vs GPUs:\n" << Pareto(r, r.pareto_gpus);
  out << "Pareto front, step time vs peak memory per GPU:\n" << Pareto(r, r.pareto_memory);
  WriteBaselineLine(base, r, *best, out);
}

}  // namespace dlsim::app
