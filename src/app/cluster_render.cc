#include "dlsim/app/cluster_render.h"

#include <fmt/format.h>

#include "dlsim/io/cluster_scenario.h"
#include "dlsim/report/format.h"
#include "dlsim/report/table.h"

namespace dlsim::app {
namespace {

// Seconds as "532 s", "2.41 h", "3.20 days".
std::string Span(double s) {
  if (s < 600) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  if (s < 86400 * 2) return fmt::format("{:.2f} h", s / 3600);
  return fmt::format("{:.2f} days", s / 86400);
}

std::string Percentile3(const Percentiles& p, int64_t n) {
  if (n == 0) return "n/a (no job completed)";
  return fmt::format("mean {}   p50 {}   p99 {}", Span(p.mean), Span(p.p50), Span(p.p99));
}

}  // namespace

std::string FormatClusterReport(const cluster::ClusterOptions& o, const cluster::ClusterResult& r) {
  const cluster::ClusterSummary& s = r.summary;
  std::string out = "cluster: " + io::SummarizeClusterOptions(o) + "\n";
  out += fmt::format(
      "  jobs         {} ({} completed, {} never ran{})\n", report::FormatCount(s.jobs),
      report::FormatCount(s.completed), report::FormatCount(s.never_fit),
      s.measured != s.completed ? fmt::format("; {} measured", report::FormatCount(s.measured)) : "");
  out += "  JCT          " + Percentile3(s.jct_s, s.measured) + "\n";
  out += "  queuing      " + Percentile3(s.queued_s, s.measured) + "\n";
  out += fmt::format("  makespan     {}\n", Span(s.makespan_s));
  out += fmt::format("  utilisation  {} of {} GPUs (busy GPU-seconds over GPUs x makespan)\n",
                     report::FormatPercent(s.utilisation), report::FormatCount(r.total_gpus));
  out += fmt::format("  fairness     finish-time fairness rho (JCT / time alone): mean {:.2f}, max {:.2f}\n",
                     s.rho_mean, s.rho_max);
  out += fmt::format("  preemptions  {}{}\n", report::FormatCount(s.preemptions),
                     s.resizes > 0 ? fmt::format(" ({} resizes)", report::FormatCount(s.resizes)) : "");
  if (o.capacity)
    out += fmt::format(
        "  loaning      usage {} (training + pool demand over all GPUs x makespan); {} nodes reclaimed, "
        "{} jobs preempted and {} shrunk by reclaims\n",
        report::FormatPercent(s.usage), report::FormatCount(s.reclaimed_nodes),
        report::FormatCount(s.reclaim_preemptions), report::FormatCount(s.reclaim_shrinks));
  out += fmt::format("  engine       {} events, {} scheduling passes\n", report::FormatCount(s.events),
                     report::FormatCount(s.passes));
  for (const cluster::JobRecord& j : r.jobs)
    if (!j.completed) {
      out += fmt::format("  never ran    job {} ('{}'): {}\n", j.id, j.name, j.reason);
      break;  // the first; the rest are in --csv / --json --records
    }
  for (const auto& [name, shapes] : r.speeds)
    for (const cluster::ShapeSpeed& sh : shapes)
      out += fmt::format("  speed        {} on {}: {:.4g} steps/s ({})\n", name, sh.shape, sh.steps_per_s,
                         sh.note);
  return out;
}

std::string FormatClusterComparison(const std::vector<cluster::ClusterResult>& results) {
  report::Table t("Policies on the same trace");
  t.AddColumn("policy")
      .AddColumn("placement")
      .AddColumn("JCT mean")
      .AddColumn("JCT p50")
      .AddColumn("JCT p99");
  t.AddColumn("queue mean").AddColumn("queue p99").AddColumn("makespan").AddColumn("util");
  t.AddColumn("rho mean").AddColumn("preempt");
  for (const cluster::ClusterResult& r : results) {
    const cluster::ClusterSummary& s = r.summary;
    t.AddRow({r.policy, r.placement, Span(s.jct_s.mean), Span(s.jct_s.p50), Span(s.jct_s.p99),
              Span(s.queued_s.mean), Span(s.queued_s.p99), Span(s.makespan_s),
              report::FormatPercent(s.utilisation), fmt::format("{:.2f}", s.rho_mean),
              report::FormatCount(s.preemptions)});
  }
  return t.Render();
}

std::string FormatClusterSweep(const std::vector<cluster::SweepRow>& rows) {
  report::Table t("Sweep: policies x load scales x seeds");
  t.AddColumn("policy").AddColumn("load x").AddColumn("seed").AddColumn("JCT mean").AddColumn("JCT p99");
  t.AddColumn("queue mean").AddColumn("makespan").AddColumn("util").AddColumn("preempt");
  for (const cluster::SweepRow& r : rows) {
    const cluster::ClusterSummary& s = r.summary;
    t.AddRow({r.policy, fmt::format("{:g}", r.load_scale), std::to_string(r.seed), Span(s.jct_s.mean),
              Span(s.jct_s.p99), Span(s.queued_s.mean), Span(s.makespan_s),
              report::FormatPercent(s.utilisation), report::FormatCount(s.preemptions)});
  }
  return t.Render();
}

nlohmann::ordered_json ClusterSweepJson(const cluster::SweepSpec& spec,
                                        const std::vector<cluster::SweepRow>& rows) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const cluster::SweepRow& r : rows)
    points.push_back({{"policy", r.policy},
                      {"load_scale", r.load_scale},
                      {"seed", r.seed},
                      {"jct_mean_s", r.summary.jct_s.mean},
                      {"jct_p99_s", r.summary.jct_s.p99},
                      {"queued_mean_s", r.summary.queued_s.mean},
                      {"makespan_s", r.summary.makespan_s},
                      {"utilisation", r.summary.utilisation},
                      {"preemptions", r.summary.preemptions},
                      {"completed", r.summary.completed}});
  nlohmann::ordered_json j;
  j["sweep"] = {{"policies", spec.policies},
                {"load_scales", spec.load_scales},
                {"seeds", spec.seeds},
                {"jobs_drawn_per_seed", static_cast<bool>(spec.regenerate)}};
  j["rows"] = std::move(points);
  return j;
}

nlohmann::ordered_json ClusterJson(const cluster::ClusterResult& r, bool records) {
  const cluster::ClusterSummary& s = r.summary;
  auto pct = [](const Percentiles& p) {
    return nlohmann::ordered_json{
        {"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}};
  };
  nlohmann::ordered_json j{{"policy", r.policy}, {"placement", r.placement}, {"gpus", r.total_gpus}};
  j["summary"] = {{"jobs", s.jobs},
                  {"completed", s.completed},
                  {"never_ran", s.never_fit},
                  {"measured", s.measured},
                  {"jct_s", pct(s.jct_s)},
                  {"queued_s", pct(s.queued_s)},
                  {"makespan_s", s.makespan_s},
                  {"utilisation", s.utilisation},
                  {"rho_mean", s.rho_mean},
                  {"rho_max", s.rho_max},
                  {"preemptions", s.preemptions},
                  {"resizes", s.resizes},
                  {"available_gpu_s", s.available_gpu_s},
                  {"inference_gpu_s", s.inference_gpu_s},
                  {"usage", s.usage},
                  {"reclaimed_nodes", s.reclaimed_nodes},
                  {"reclaim_preemptions", s.reclaim_preemptions},
                  {"reclaim_shrinks", s.reclaim_shrinks},
                  {"reclaim_lost_gpu_s", s.reclaim_lost_gpu_s},
                  {"events", s.events},
                  {"passes", s.passes}};
  j["utilisation"] = nlohmann::ordered_json::array();
  for (const cluster::UtilSample& u : r.utilisation)
    j["utilisation"].push_back(
        {{"t_s", u.t_s}, {"busy_gpus", u.busy_gpus}, {"running", u.running}, {"waiting", u.waiting}});
  j["speeds"] = nlohmann::ordered_json::object();
  for (const auto& [name, shapes] : r.speeds) {
    auto& list = j["speeds"][name] = nlohmann::ordered_json::array();
    for (const cluster::ShapeSpeed& sh : shapes)
      list.push_back({{"shape", sh.shape}, {"steps_per_s", sh.steps_per_s}, {"note", sh.note}});
  }
  if (!records) return j;
  j["jobs"] = nlohmann::ordered_json::array();
  for (const cluster::JobRecord& x : r.jobs)
    j["jobs"].push_back({{"id", x.id},
                         {"name", x.name},
                         {"gpus", x.gpus},
                         {"arrival_s", x.arrival_s},
                         {"start_s", x.start_s},
                         {"finish_s", x.finish_s},
                         {"jct_s", x.jct_s},
                         {"queued_s", x.queued_s},
                         {"run_s", x.run_s},
                         {"alone_s", x.alone_s},
                         {"preemptions", x.preemptions},
                         {"nodes", x.nodes_spanned},
                         {"completed", x.completed},
                         {"reason", x.reason}});
  return j;
}

void WriteJobsCsv(const cluster::ClusterResult& r, std::ostream& out) {
  out << "id,name,gpus,arrival_s,start_s,finish_s,jct_s,queued_s,run_s,alone_s,preemptions,nodes,completed,"
         "reason\n";
  auto cell = [](std::string s) {  // no quoting in our CSV: commas and newlines become ';'
    for (char& c : s)
      if (c == ',' || c == '\n') c = ';';
    return s;
  };
  for (const cluster::JobRecord& x : r.jobs) {
    const std::string name = cell(x.name), reason = cell(x.reason);
    out << fmt::format("{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{},{}\n", x.id, name,
                       x.gpus, x.arrival_s, x.start_s, x.finish_s, x.jct_s, x.queued_s, x.run_s, x.alone_s,
                       x.preemptions, x.nodes_spanned, x.completed ? 1 : 0, reason);
  }
}

void WriteSeriesCsv(const cluster::ClusterResult& r, std::ostream& out) {
  out << "t_s,busy_gpus,utilisation,running,waiting\n";
  for (const cluster::UtilSample& u : r.utilisation)
    out << fmt::format("{:.0f},{:.3f},{:.4f},{},{}\n", u.t_s, u.busy_gpus,
                       r.total_gpus > 0 ? u.busy_gpus / static_cast<double>(r.total_gpus) : 0, u.running,
                       u.waiting);
}

}  // namespace dlsim::app
