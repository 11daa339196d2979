#include "cluster_inputs.h"

#include <fmt/format.h>

#include "dlsim/io/paths.h"

namespace dlsim::io {
namespace {

void ReadLrTuner(const MapReader& t, const std::string& base_dir, JobTables& out) {
  std::string path;
  const std::optional<std::string> name = t.Require<std::string>("name");
  const std::optional<std::string> task = t.Find<std::string>("task");
  if (std::optional<std::string> text = ReadDataFile(t, "table", base_dir, &path)) {
    Result<std::vector<cluster::LrTunerRow>> rows = cluster::ParseLrTunerTable(*text, path);
    if (!rows.ok())
      t.AddError("table", rows.error().message);
    else
      out.lr_rows = std::move(*rows);
  } else if (!t.Has("table")) {
    t.AddError("table",
               "an lr_tuner needs `table:` (a CSV: tuner,task,steps_ratio,trial_overhead; dlsim ships none)");
  }
  t.Finish();
  if (!out.lr_rows || !name || !task) return;
  Result<cluster::LrTunerRow> row = cluster::FindLrTuner(*out.lr_rows, *name, *task);
  if (!row.ok())
    t.AddError("task", row.error().message);
  else
    out.lr_all = *row;
}

}  // namespace

std::optional<std::string> ReadDataFile(const MapReader& m, std::string_view key, const std::string& base_dir,
                                        std::string* path_out) {
  std::optional<std::string> file = m.Find<std::string>(key);
  if (!file) return std::nullopt;
  const std::string path = ResolvePath(base_dir, *file);
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) {
    m.AddError(key, text.error().message);
    return std::nullopt;
  }
  if (path_out) *path_out = path;
  return std::move(*text);
}

JobTables ReadJobTables(const MapReader& jobs, const std::string& base_dir) {
  JobTables out;
  std::string path;
  if (std::optional<std::string> text = ReadDataFile(jobs, "input_classes", base_dir, &path)) {
    Result<std::vector<cluster::InputClass>> c = cluster::ParseInputClasses(*text, path);
    if (!c.ok())
      jobs.AddError("input_classes", c.error().message);
    else
      out.input_classes = std::move(*c);
  }
  out.input_cost_scale = jobs.Get<double>("input_cost_scale", 1, Range::Between(0, 1000));
  out.input_seed = static_cast<uint64_t>(jobs.Get<int64_t>("input_seed", 1, Range::NonNegative()));
  if (MapReader t = jobs.Section("lr_tuner"); t.present()) ReadLrTuner(t, base_dir, out);
  return out;
}

void ReadListedJobInputs(const MapReader& m, const JobTables& tables, cluster::JobSpec& job) {
  if (std::optional<std::string> name = m.Find<std::string>("input_class")) {
    if (!tables.input_classes) return m.AddError("input_class", "needs `input_classes:` in `jobs`");
    Result<cluster::InputClass> c = cluster::FindInputClass(*tables.input_classes, *name);
    if (!c.ok()) return m.AddError("input_class", c.error().message);
    cluster::ApplyInputClass(job, *c, tables.input_cost_scale);
  }
  job.input_core_s = m.Get<double>("input_core_s", job.input_core_s, Range::Between(0, 1e9));
  job.input_bytes = m.Get<double>("input_bytes", job.input_bytes, Range::Between(0, 1e15));
  const std::optional<std::string> tuner = m.Find<std::string>("lr_tuner");
  const std::optional<std::string> task = m.Find<std::string>("lr_task");
  if (!tuner) return;
  if (!tables.lr_rows) return m.AddError("lr_tuner", "needs `lr_tuner: {table: ...}` in `jobs`");
  if (!task) return m.AddError("lr_task", "a job with an lr_tuner names its task class (`lr_task`)");
  Result<cluster::LrTunerRow> row = cluster::FindLrTuner(*tables.lr_rows, *tuner, *task);
  if (!row.ok()) return m.AddError("lr_task", row.error().message);
  cluster::ApplyLrTuner(job, *row);
}

void ApplyJobTables(const JobTables& tables, bool listed, std::vector<cluster::JobSpec>& jobs) {
  if (!listed && tables.input_classes)
    cluster::AssignInputClasses(jobs, *tables.input_classes, tables.input_seed, tables.input_cost_scale);
  if (tables.lr_all)
    for (cluster::JobSpec& j : jobs) cluster::ApplyLrTuner(j, *tables.lr_all);
}

}  // namespace dlsim::io
