// `dlsim repro`: the reproduction registry and the renderings of a ReproResult.
#include "dlsim/app/repro_command.h"

#include <fmt/core.h>

#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/edge_list.h"
#include "dlsim/io/multitask_workload.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::app {
namespace {

nlohmann::ordered_json ReproJson(const repro::ReproResult& r) {
  nlohmann::ordered_json j;
  j["name"] = r.name;
  j["claim"] = r.claim;
  j["paper_ratio"] = r.paper_ratio;
  j["our_ratio"] = r.our_ratio;
  j["workload"] = r.workload;
  j["baseline"] = r.baseline;
  j["notes"] = r.notes;
  j["details"] = r.details;
  return j;
}

std::string Cell(const nlohmann::ordered_json& v) {
  return v.is_string() ? v.get<std::string>() : v.is_number() ? FormatNumber(v.get<double>(), 4) : v.dump();
}

// The details rows as a table; the columns are the first row's keys.
report::Table DetailsTable(const nlohmann::ordered_json& details) {
  report::Table t("Details");
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

void WriteReport(const repro::ReproResult& r, std::ostream& out) {
  out << fmt::format(
      "{}\n  claim:    {}\n  workload: {}\n  baseline: {}\n  paper:    {:.3g}x\n  dlsim:    {:.3g}x\n",
      r.name, r.claim, r.workload, r.baseline, r.paper_ratio, r.our_ratio);
  if (!r.notes.empty()) out << "  notes:    " << r.notes << "\n";
  if (r.details.is_array() && !r.details.empty() && r.details[0].is_object())
    out << "\n" << DetailsTable(r.details);
}

// The edge-list reader a graph reproduction gets (io's parser, ids relabelled densely).
Result<gnn::EdgeList> ReadEdgeList(const std::string& path, int skip_lines) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return io::ParseEdgeList(text, path, {.skip_lines = skip_lines});
}

}  // namespace

int RunReproCommand(const ReproArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err) {
  repro::ReproRegistry reg("reproduction");
  repro::RegisterReproductions(reg);
  if (args.name.empty() || args.name == "list") {
    report::Table t("Reproductions (dlsim repro NAME)");
    t.AddColumn("name", "", report::Align::kLeft).AddColumn("system and claim", "", report::Align::kLeft);
    for (const auto* e : reg.Entries()) t.AddRow({e->name, e->description});
    out << t;
    return kExitOk;
  }
  auto entry = reg.Create(args.name);
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
  auto r = (*entry)->Run(repro::ReproEnv{&cat, args.graphs_dir, ReadEdgeList, read_multitask});
  if (!r.ok()) return ReportError("repro", r.error(), err);
  if (args.json) {
    out << report::DumpDeterministic(ReproJson(*r)) << "\n";
  } else {
    WriteReport(*r, out);
  }
  return kExitOk;
}

}  // namespace dlsim::app
