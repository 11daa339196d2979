// validate::ScoreRuns (calibrate.h): a runs file as a held-out validation set.
#include "dlsim/validate/calibrate.h"
#include "set_scenarios.h"

namespace dlsim::validate {

ValidationSet ScoreRuns(std::string name, std::string source, const std::vector<CalibrationRun>& runs,
                        const catalog::Catalogs& catalogs) {
  ValidationSet set{std::move(name), "step time (s)", std::move(source), 0.0, {}};
  const internal::Runner run{catalogs};
  for (const CalibrationRun& r : runs)
    set.rows.push_back(internal::Row(r.label, r.step_time_s, r.options, run));
  return set;
}

}  // namespace dlsim::validate
