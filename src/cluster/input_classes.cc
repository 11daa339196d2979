#include "dlsim/cluster/input_classes.h"

#include <fmt/format.h>

#include "bounded_cell.h"
#include "dlsim/core/csv.h"
#include "dlsim/core/rng.h"
#include "dlsim/core/strings.h"

namespace dlsim::cluster {

Result<std::vector<InputClass>> ParseInputClasses(std::string_view text, const std::string& file) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file));
  if (t.rows.empty()) return Error::InvalidArgument(file + ": no input classes");
  std::vector<InputClass> out;
  double shares = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    InputClass c;
    DLSIM_ASSIGN_OR_RETURN(c.name, t.Text(r, "class"));
    DLSIM_ASSIGN_OR_RETURN(c.gpu_samples_per_s, BoundedCell(t, r, "gpu_samples_per_s", 0, 1e9, true));
    DLSIM_ASSIGN_OR_RETURN(c.cpu_core_ms_per_sample,
                           BoundedCell(t, r, "cpu_core_ms_per_sample", 0, 1e6, false));
    DLSIM_ASSIGN_OR_RETURN(c.bytes_per_sample, BoundedCell(t, r, "bytes_per_sample", 0, 1e12, false));
    DLSIM_ASSIGN_OR_RETURN(c.share, BoundedCell(t, r, "share", 0, 1e6, false));
    for (const InputClass& o : out)
      if (o.name == c.name)
        return Error::InvalidArgument(
            fmt::format("{}:{}: class '{}' is listed twice", file, t.row_lines[r], c.name));
    shares += c.share;
    out.push_back(std::move(c));
  }
  if (!(shares > 0)) return Error::InvalidArgument(file + ": every class has share 0");
  return out;
}

Result<InputClass> FindInputClass(const std::vector<InputClass>& classes, std::string_view name) {
  std::vector<std::string> names;
  for (const InputClass& c : classes) {
    if (c.name == name) return c;
    names.push_back(c.name);
  }
  return Error::NotFound(UnknownNameMessage("input class", name, names));
}

void ApplyInputClass(JobSpec& job, const InputClass& c, double cost_scale) {
  if (!job.speed.empty()) return;
  const double samples_per_work = std::max(job.gpus, 1) * c.gpu_samples_per_s;
  job.input_core_s = samples_per_work * c.cpu_core_ms_per_sample / 1000.0 * cost_scale;
  job.input_bytes = samples_per_work * c.bytes_per_sample;
}

std::vector<int> AssignInputClasses(std::vector<JobSpec>& jobs, const std::vector<InputClass>& classes,
                                    uint64_t seed, double cost_scale) {
  std::vector<int> picked(jobs.size(), 0);
  double total = 0;
  for (const InputClass& c : classes) total += c.share;
  if (classes.empty() || !(total > 0)) return picked;
  Rng rng = Rng(seed).Stream("cluster/input-classes");
  for (size_t i = 0; i < jobs.size(); ++i) {
    double u = rng.NextDouble() * total;
    int k = 0;
    while (k + 1 < static_cast<int>(classes.size()) && u >= classes[k].share) u -= classes[k++].share;
    picked[i] = k;
    ApplyInputClass(jobs[i], classes[k], cost_scale);
  }
  return picked;
}

}  // namespace dlsim::cluster
