#include "dlsim/io/serving_runs.h"

#include <cmath>

#include "dlsim/core/csv.h"
#include "dlsim/io/data_section.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

// A positive finite time in column `column` of `row`, or an error at its cell.
Result<double> Millis(const CsvTable& t, size_t row, std::string_view column) {
  DLSIM_ASSIGN_OR_RETURN(double v, t.Number(row, column));
  DLSIM_ASSIGN_OR_RETURN(size_t c, t.Column(column));
  if (!(v > 0) || v > 1e9)
    return Error::InvalidArgument(t.Where(row, c) + ": column '" + std::string(column) +
                                  "': expected a time in ms > 0, found " + t.rows[row][c]);
  return v;
}

Result<validate::ServingRun> Row(const CsvTable& t, size_t i, const std::string& base_dir,
                                 const catalog::Catalogs& cat, const ServeNames& names) {
  validate::ServingRun run;
  const std::string at = t.file_name + ":" + std::to_string(t.row_lines[i]);
  run.label = t.Column("label").ok() ? *t.Text(i, "label") : at;
  if (run.label.empty()) run.label = at;
  DLSIM_ASSIGN_OR_RETURN(std::string scenario, t.Text(i, "scenario"));
  auto o = LoadServeScenarioFile(ResolvePath(base_dir, scenario), cat.hardware, cat.models, names);
  if (!o.ok()) return Error::InvalidArgument(at + ": scenario: " + o.error().message);
  run.options = std::move(o).value();
  DLSIM_ASSIGN_OR_RETURN(run.tpot_ms, Millis(t, i, "tpot_ms"));
  if (t.Column("ttft_ms").ok() && !t.Text(i, "ttft_ms")->empty()) {
    DLSIM_ASSIGN_OR_RETURN(double ttft, Millis(t, i, "ttft_ms"));
    run.ttft_ms = ttft;
  }
  return run;
}

}  // namespace

Result<std::vector<validate::ServingRun>> ParseServingRuns(std::string_view text,
                                                           const std::string& file_name,
                                                           const catalog::Catalogs& catalogs,
                                                           const ServeNames& names) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file_name));
  for (const char* required : {"scenario", "tpot_ms"})
    if (auto c = t.Column(required); !c.ok()) return c.error();
  if (t.rows.empty()) return Error::InvalidArgument(file_name + ": no runs");
  std::vector<validate::ServingRun> runs;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(validate::ServingRun run, Row(t, i, FolderOf(file_name), catalogs, names));
    runs.push_back(std::move(run));
  }
  return runs;
}

Result<std::vector<validate::ServingRun>> LoadServingRuns(const std::string& path,
                                                          const catalog::Catalogs& catalogs,
                                                          const ServeNames& names) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseServingRuns(text, path, catalogs, names);
}

}  // namespace dlsim::io
