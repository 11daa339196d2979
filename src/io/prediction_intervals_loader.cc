#include "dlsim/io/prediction_intervals_loader.h"

#include "dlsim/io/embedded.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {

Result<cost::PredictionIntervals> ParsePredictionIntervals(std::string_view yaml_text,
                                                           std::string file_name) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(yaml_text, file_name));
  const MapReader root = doc.Root();
  cost::PredictionIntervals p;
  p.source = file_name;
  p.level = root.Get<double>("level", 0.8, Range::HalfOpen(0.5, 1));
  p.outside_widen = root.Get<double>("outside_widen", 1.5, Range::Between(1, 10));
  const MapReader regimes = root.Section("regimes");
  for (const std::string& name : regimes.Keys()) {
    const MapReader r = regimes.Section(name);
    cost::IntervalRegime g;
    g.name = name;
    g.low = r.Get<double>("low", 1, Range::Positive(1));
    g.high = r.Get<double>("high", 1, Range::Between(1, 100));
    g.sets = r.Get<int>("sets", 0, Range::NonNegative());
    g.rows = r.Get<int>("rows", 0, Range::NonNegative());
    g.what = r.Get<std::string>("what", "");
    g.engines = r.FindList<std::string>("engines").value_or(std::vector<std::string>{});
    g.gpus = r.FindList<std::string>("gpus").value_or(std::vector<std::string>{});
    g.stacks = r.FindList<std::string>("stacks").value_or(std::vector<std::string>{});
    r.Finish();
    p.regimes.push_back(g);
  }
  regimes.Finish();
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());
  return p;
}

Result<cost::PredictionIntervals> LoadDefaultPredictionIntervals() {
  return ParsePredictionIntervals(embedded::PredictionIntervalsYaml(), "data/calibration/intervals.yaml");
}

}  // namespace dlsim::io
