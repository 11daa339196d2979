// RUNS.csv of `dlsim calibrate` (see the header): each row's scenario file with the row's keys laid
// over it, read by the training scenario reader.
#include "dlsim/io/calibration_runs.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <optional>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char ch : s) {
    if (ch == sep) {
      out.emplace_back();
    } else {
      out.back().push_back(ch);
    }
  }
  return out;
}

bool IsMeasureColumn(const std::string& c) {
  return c == "label" || c == "scenario" || c == "step_time_s" || c == "peak_memory_gib";
}

// A measured quantity: a finite number > 0, or (when optional) an empty cell.
Result<std::optional<double>> Measure(const CsvTable& t, size_t row, const char* column, bool required) {
  const auto c = t.Column(column);
  if (!c.ok()) {
    if (required)
      return Error::InvalidArgument(t.file_name + ": needs a '" + column + "' column (" + c.error().message +
                                    ")");
    return std::optional<double>();
  }
  if (!required && Trim(t.rows[row][*c]).empty()) return std::optional<double>();
  DLSIM_ASSIGN_OR_RETURN(double v, t.Number(row, column));
  if (!(v > 0))
    return Error::InvalidArgument(t.Where(row, *c) + ": column '" + column +
                                  "': expected a measured value > 0, found " + t.rows[row][*c]);
  return std::optional<double>(v);
}

// Sets the dotted key `path` of `root` to the scalar `value`, making maps on the way.
Status SetKey(YAML::Node root, const std::string& path, const std::string& value, const std::string& where) {
  const std::vector<std::string> parts = Split(path, '.');
  YAML::Node node = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i].empty() || (node[parts[i]] && !node[parts[i]].IsMap()))
      return Error::InvalidArgument(where + ": column '" + path + "': '" + parts[i] + "' is not a section");
    YAML::Node child = node[parts[i]];
    node.reset(child);
  }
  if (parts.back().empty()) return Error::InvalidArgument(where + ": column '" + path + "': not a key path");
  node[parts.back()] = YAML::Load(value);
  return Status::Ok();
}

// The row's scenario text: its scenario file (or an empty map) with the row's key columns laid over it.
Result<std::string> RowScenario(const CsvTable& t, size_t row, const std::string& scenario_path) {
  YAML::Node root(YAML::NodeType::Map);
  if (!scenario_path.empty()) {
    DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(scenario_path));
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      return Error::Parse(scenario_path + ": " + e.what());
    }
    if (!root.IsMap()) return Error::InvalidArgument(scenario_path + ": a scenario is a map of sections");
  }
  for (size_t c = 0; c < t.header.size(); ++c) {
    const std::string cell = Trim(t.rows[row][c]);
    if (IsMeasureColumn(t.header[c]) || cell.empty()) continue;
    try {
      DLSIM_RETURN_IF_ERROR(SetKey(root, t.header[c], cell, t.Where(row, c)));
    } catch (const YAML::Exception& e) {
      return Error::InvalidArgument(t.Where(row, c) + ": column '" + t.header[c] + "': " + e.what());
    }
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str());
}

// "FILE:LINE:COL: column 'KEY': " for the first key column that `message` names, else "FILE:LINE: ".
std::string CellOf(const CsvTable& t, size_t row, const std::string& message) {
  for (size_t c = 0; c < t.header.size(); ++c)
    if (!IsMeasureColumn(t.header[c]) && message.find(t.header[c] + ":") != std::string::npos)
      return t.Where(row, c) + ": column '" + t.header[c] + "': ";
  return t.file_name + ":" + std::to_string(t.row_lines[row]) + ": ";
}

Result<validate::CalibrationRun> ReadRun(const CsvTable& t, size_t row, const catalog::Catalogs& catalogs) {
  const std::string where = t.file_name + ":" + std::to_string(t.row_lines[row]);
  validate::CalibrationRun run;
  const auto label = t.Column("label");
  run.label = label.ok() && !Trim(t.rows[row][*label]).empty() ? Trim(t.rows[row][*label]) : where;
  DLSIM_ASSIGN_OR_RETURN(std::optional<double> step, Measure(t, row, "step_time_s", true));
  run.step_time_s = *step;
  DLSIM_ASSIGN_OR_RETURN(run.peak_memory_gib, Measure(t, row, "peak_memory_gib", false));
  std::string scenario;
  if (const auto c = t.Column("scenario"); c.ok() && !Trim(t.rows[row][*c]).empty())
    scenario = ResolvePath(std::filesystem::path(t.file_name).parent_path().string(), Trim(t.rows[row][*c]));
  auto text = RowScenario(t, row, scenario);
  if (!text.ok()) return Error{text.error().code, where + ": " + text.error().message};
  // The merged text's line numbers are not the file's: the message also names the cell of a column it is
  // about.
  const std::string name = scenario.empty() ? where + " (the row's keys)" : scenario + " with the row's keys";
  auto options = ParseTrainScenario(*text, name, catalogs.hardware, catalogs.models);
  if (!options.ok())
    return Error{options.error().code, CellOf(t, row, options.error().message) + options.error().message};
  run.options = std::move(options).value();
  return run;
}

}  // namespace

Result<std::vector<validate::CalibrationRun>> ParseCalibrationRuns(std::string_view text,
                                                                   const std::string& file_name,
                                                                   const catalog::Catalogs& catalogs) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file_name));
  if (!t.Column("step_time_s").ok())
    return Error::InvalidArgument(
        file_name +
        ": needs a 'step_time_s' column (the measured seconds per step); found: " + Join(t.header, ", "));
  std::vector<validate::CalibrationRun> runs;
  for (size_t row = 0; row < t.rows.size(); ++row) {
    DLSIM_ASSIGN_OR_RETURN(validate::CalibrationRun r, ReadRun(t, row, catalogs));
    runs.push_back(std::move(r));
  }
  if (runs.empty()) return Error::InvalidArgument(file_name + ": no runs (a header and at least 2 rows)");
  return runs;
}

Result<std::vector<validate::CalibrationRun>> LoadCalibrationRuns(const std::string& path,
                                                                  const catalog::Catalogs& catalogs) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseCalibrationRuns(text, path, catalogs);
}

}  // namespace dlsim::io
