// `dlsim repro`: the reproduction registry and the renderings of a ReproResult.
#include "dlsim/app/repro_command.h"

#include <fmt/core.h>

#include <set>
#include <sstream>

#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/edge_list.h"
#include "dlsim/io/multitask_workload.h"
#include "dlsim/io/repro_verdicts.h"
#include "dlsim/io/shipped_graphs.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"
#include "dlsim/repro/reproduction.h"
#include "dlsim/repro/verdict.h"
#include "repro_html.h"
#include "run_sinks.h"

namespace dlsim::app {
namespace {

nlohmann::ordered_json VerdictJson(const repro::ReproResult& r) {
  const repro::Verdict v = repro::JudgeResult(r);
  nlohmann::ordered_json j;
  j["status"] = std::string(repro::VerdictName(v.status));
  j["ratio_to_paper"] = v.ratio_to_paper;
  j["band"] = {repro::kBandLow, repro::kBandHigh};
  j["cause"] = v.cause;
  return j;
}

nlohmann::ordered_json PointsJson(const std::vector<repro::ReproPoint>& points) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const repro::ReproPoint& p : points) {
    nlohmann::ordered_json row;
    row["point"] = p.point;
    row["paper"] = p.paper;
    row["dlsim"] = p.ours;
    row["ratio"] = p.ours > 0 && p.paper > 0 ? p.ours / p.paper : 0;
    if (!p.note.empty()) row["note"] = p.note;
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::ordered_json ReproJson(const repro::ReproResult& r) {
  nlohmann::ordered_json j;
  j["name"] = r.name;
  j["claim"] = r.claim;
  j["operating_point"] = r.operating_point;
  j["paper_ratio"] = r.paper_ratio;
  j["our_ratio"] = r.our_ratio;
  j["verdict"] = VerdictJson(r);
  j["workload"] = r.workload;
  j["baseline"] = r.baseline;
  j["notes"] = r.notes;
  j["points"] = PointsJson(r.points);
  j["points_geomean_ratio"] = repro::PointsGeoMeanRatio(r.points);
  j["details"] = r.details;
  if (!r.measured.empty()) j["measured"] = r.measured;
  if (!r.real_graphs.empty()) j["real_graphs"] = r.real_graphs;
  return j;
}

std::string Cell(const nlohmann::ordered_json& v) {
  return v.is_string() ? v.get<std::string>() : v.is_number() ? FormatNumber(v.get<double>(), 4) : v.dump();
}

// Rows of objects as a table titled `title`; the columns are the first row's keys.
report::Table DetailsTable(const nlohmann::ordered_json& details, const std::string& title = "Details") {
  report::Table t(title);
  std::vector<std::string> keys;
  for (auto it = details[0].begin(); it != details[0].end(); ++it) {
    keys.push_back(it.key());
    t.AddColumn(it.key());
  }
  for (const auto& row : details) {
    std::vector<std::string> cells;
    for (const auto& k : keys) cells.push_back(Cell(row.contains(k) ? row[k] : nlohmann::ordered_json()));
    t.AddRow(cells);
  }
  return t;
}

report::Table PointsTable(const std::vector<repro::ReproPoint>& points) {
  report::Table t(fmt::format("Points (the paper's figure; geometric mean of dlsim / paper {}x)",
                              FormatNumber(repro::PointsGeoMeanRatio(points), 3)));
  t.AddColumn("point", "", report::Align::kLeft).AddColumn("paper").AddColumn("dlsim").AddColumn("ratio");
  t.AddColumn("note", "", report::Align::kLeft);
  for (const repro::ReproPoint& p : points) {
    const double ratio = p.ours > 0 && p.paper > 0 ? p.ours / p.paper : 0;
    t.AddRow({p.point, FormatNumber(p.paper, 4), FormatNumber(p.ours, 4), FormatNumber(ratio, 3), p.note});
  }
  return t;
}

void WriteReport(const repro::ReproResult& r, std::ostream& out) {
  out << fmt::format("{}\n  claim:    {}\n", r.name, r.claim);
  if (!r.operating_point.empty()) out << "  point:    " << r.operating_point << "\n";
  out << fmt::format("  workload: {}\n  baseline: {}\n  paper:    {:.3g}x\n  dlsim:    {:.3g}x\n", r.workload,
                     r.baseline, r.paper_ratio, r.our_ratio);
  out << "  verdict:  " << VerdictLine(r) << "\n";
  if (!r.notes.empty()) out << "  notes:    " << r.notes << "\n";
  if (!r.points.empty()) out << "\n" << PointsTable(r.points);
  if (r.details.is_array() && !r.details.empty() && r.details[0].is_object())
    out << "\n" << DetailsTable(r.details);
  if (r.measured.is_array() && !r.measured.empty() && r.measured[0].is_object())
    out << "\n" << DetailsTable(r.measured, "Measured (the model against measurements, beside the headline)");
  if (r.real_graphs.is_array() && !r.real_graphs.empty() && r.real_graphs[0].is_object())
    out << "\n"
        << DetailsTable(r.real_graphs,
                        "On the real graphs shipped with dlsim (data/graphs, beside the headline)");
}

// The edge-list reader a graph reproduction gets (io's parser, ids relabelled densely).
Result<gnn::EdgeList> ReadEdgeList(const std::string& path, int skip_lines) {
  return io::ReadEdgeListFile(path, {.skip_lines = skip_lines});
}

// The real graphs shipped with dlsim (io/shipped_graphs.h), read at the first call and shared after it:
// `--check` runs five graph reproductions, each of which asks for them.
Result<std::vector<repro::ReproEnv::NamedEdgeList>> ReadShippedGraphs() {
  static const Result<std::vector<repro::ReproEnv::NamedEdgeList>> graphs =
      []() -> Result<std::vector<repro::ReproEnv::NamedEdgeList>> {
    std::vector<repro::ReproEnv::NamedEdgeList> out;
    for (const io::ShippedGraphInfo& g : io::ShippedGraphs()) {
      DLSIM_ASSIGN_OR_RETURN(gnn::EdgeList e, io::ReadShippedGraph(g.name));
      out.push_back({g.name, std::make_shared<const gnn::EdgeList>(std::move(e)), g.directed});
    }
    return out;
  }();
  return graphs;
}

}  // namespace

namespace {

int ListReproductions(const repro::ReproRegistry& reg, std::ostream& out) {
  report::Table t("Reproductions (dlsim repro NAME)");
  t.AddColumn("name", "", report::Align::kLeft).AddColumn("system and claim", "", report::Align::kLeft);
  for (const auto* e : reg.Entries()) t.AddRow({e->name, e->description});
  out << t;
  return kExitOk;
}

// The expected verdicts: --expect FILE, or the docs/reproductions.md compiled in.
Result<std::vector<io::ExpectedVerdict>> ExpectedVerdicts(const ReproArgs& args) {
  if (args.expect_file.empty())
    return io::ParseReproVerdicts(embedded::ReproductionsMd(), "docs/reproductions.md");
  DLSIM_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(args.expect_file));
  return io::ParseReproVerdicts(text, args.expect_file);
}

// One row of the --check table and whether it agrees with the docs.
bool CheckOne(const repro::ReproRegistry& reg, const io::ExpectedVerdict& want, const repro::ReproEnv& env,
              report::Table& t) {
  const std::string recorded(repro::VerdictName(want.status));
  auto entry = reg.Create(want.name);
  if (!entry.ok()) {
    t.AddRow({want.name, "", "", "", "unknown", recorded, "FAIL: " + entry.error().message});
    return false;
  }
  auto r = (*entry)->Run(env);
  if (!r.ok()) {
    t.AddRow({want.name, "", "", "", "error", recorded, "FAIL: " + r.error().message});
    return false;
  }
  const repro::Verdict v = repro::JudgeResult(*r);
  const bool same = v.status == want.status;
  t.AddRow({want.name, FormatNumber(r->paper_ratio, 3), FormatNumber(r->our_ratio, 3),
            FormatNumber(v.ratio_to_paper, 3), std::string(repro::VerdictName(v.status)), recorded,
            same ? "ok" : "FAIL: docs/reproductions.md says " + recorded});
  return same;
}

// Every reproduction in the docs' table, then the registered ones the table lacks.
int RunCheck(const repro::ReproRegistry& reg, const ReproArgs& args, const repro::ReproEnv& env,
             std::ostream& out, std::ostream& err) {
  auto expected = ExpectedVerdicts(args);
  if (!expected.ok()) return ReportError("repro --check", expected.error(), err);
  report::Table t("Reproduction verdicts against docs/reproductions.md (band [0.8, 1.25]x of the paper)");
  t.AddColumn("name", "", report::Align::kLeft)
      .AddColumn("paper")
      .AddColumn("dlsim")
      .AddColumn("dlsim/paper");
  t.AddColumn("verdict", "", report::Align::kLeft).AddColumn("docs", "", report::Align::kLeft);
  t.AddColumn("check", "", report::Align::kLeft);
  int failed = 0;
  size_t rows = expected->size();
  std::set<std::string> listed;
  for (size_t i = 0; i < expected->size(); ++i) {
    const io::ExpectedVerdict& want = (*expected)[i];
    err << fmt::format("repro --check: [{}/{}] {}\n", i + 1, expected->size(), want.name) << std::flush;
    listed.insert(want.name);
    failed += CheckOne(reg, want, env, t) ? 0 : 1;
  }
  for (const auto* e : reg.Entries()) {
    if (listed.count(e->name) != 0) continue;
    t.AddRow({e->name, "", "", "", "", "missing", "FAIL: not in the Verdicts table"});
    ++failed;
    ++rows;
  }
  out << t;
  out << fmt::format("{} of {} agree with the docs\n", rows - failed, rows);
  return failed == 0 ? kExitOk : kExitError;
}

}  // namespace

int RunReproCommand(const ReproArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err) {
  repro::ReproRegistry reg("reproduction");
  repro::RegisterReproductions(reg);
  const bool list = !args.check && (args.name.empty() || args.name == "list");
  if (list && !args.html_path.empty()) {  // refused, never silently ignored
    err << "dlsim repro: --html draws one reproduction; give its NAME\n";
    return kExitUsage;
  }
  if (list) return ListReproductions(reg, out);
  if (args.check && !args.name.empty()) {
    err << "dlsim repro: --check runs every reproduction; give no NAME\n";
    return kExitUsage;
  }
  auto entry = args.check ? Result<std::unique_ptr<repro::Reproduction>>(nullptr) : reg.Create(args.name);
  if (!entry.ok()) {  // an unknown name is a command-line error (exit 2), with the closest name
    ReportError("repro", entry.error(), err);
    return kExitUsage;
  }
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("repro", catalogs.error(), err);
  const catalog::Catalogs& cat = *catalogs;
  auto read_multitask = [&cat](std::string_view yaml, const std::string& file_name) {
    return io::ParseMultitaskWorkloads(yaml, file_name, cat.hardware, cat.models);
  };
  repro::ReproEnv env{&cat, args.graphs_dir, ReadEdgeList, read_multitask};
  env.read_shipped_graphs = ReadShippedGraphs;
  if (args.check) return RunCheck(reg, args, env, out, err);
  auto r = (*entry)->Run(env);
  if (!r.ok()) return ReportError("repro", r.error(), err);
  if (!args.html_path.empty()) {
    std::ostringstream text;
    WriteReport(*r, text);
    const Status w = WritePage(ReproHtml(*r, text.str()), args.html_path, err);
    if (!w.ok()) return ReportError("repro", w.error(), err);
  }
  if (args.json) {
    out << JsonOutput(ReproJson(*r)) << "\n";
  } else {
    WriteReport(*r, out);
  }
  return kExitOk;
}

}  // namespace dlsim::app
