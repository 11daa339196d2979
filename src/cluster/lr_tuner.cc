#include "dlsim/cluster/lr_tuner.h"

#include <fmt/format.h>

#include "bounded_cell.h"
#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"

namespace dlsim::cluster {

Result<std::vector<LrTunerRow>> ParseLrTunerTable(std::string_view text, const std::string& file) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file));
  if (t.rows.empty()) return Error::InvalidArgument(file + ": no rows");
  std::vector<LrTunerRow> out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    LrTunerRow row;
    DLSIM_ASSIGN_OR_RETURN(row.tuner, t.Text(r, "tuner"));
    DLSIM_ASSIGN_OR_RETURN(row.task, t.Text(r, "task"));
    DLSIM_ASSIGN_OR_RETURN(row.steps_ratio, BoundedCell(t, r, "steps_ratio", 0, 10, true));
    DLSIM_ASSIGN_OR_RETURN(row.trial_overhead, BoundedCell(t, r, "trial_overhead", 0, 100, false));
    out.push_back(std::move(row));
  }
  return out;
}

Result<LrTunerRow> FindLrTuner(const std::vector<LrTunerRow>& rows, std::string_view tuner,
                               std::string_view task) {
  std::vector<std::string> known;
  for (const LrTunerRow& r : rows) {
    if (r.tuner == tuner && r.task == task) return r;
    known.push_back(r.tuner + "/" + r.task);
  }
  return Error::NotFound(UnknownNameMessage("lr tuner/task", fmt::format("{}/{}", tuner, task), known));
}

void ApplyLrTuner(JobSpec& job, const LrTunerRow& row) {
  job.work *= row.steps_ratio * (1.0 + row.trial_overhead);
}

}  // namespace dlsim::cluster
