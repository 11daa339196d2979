#include "data_repro.h"

#include <cmath>

#include "dlsim/train/layout_check.h"
#include "dlsim/train/node_defaults.h"
#include "dlsim/train/simulate.h"

namespace dlsim::embedded {
std::string_view SkrullTable1LengthsCsv();  // data/repro/skrull_table1_lengths.csv
}  // namespace dlsim::embedded

namespace dlsim::repro::internal {

Result<train::TrainOptions> MakeTrainOptions(const catalog::Catalogs& cat, const JobSetup& s,
                                             const data::DataOptions& data) {
  train::TrainOptions o;
  DLSIM_ASSIGN_OR_RETURN(const model::ModelSpec* model, cat.models.Find(s.model));
  o.model = *model;
  if (s.reshape) s.reshape(o.model);
  DLSIM_ASSIGN_OR_RETURN(const hw::NodeSpec* node, cat.hardware.FindNode(s.node));
  train::ApplyNodeDefaults(*node, o.hardware);
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, cat.hardware.FindGpu(o.hardware.gpu));
  o.hardware.gpu = gpu->name;
  o.hardware.gpus = s.gpus;
  o.training.seq_len = s.seq_len;
  o.training.global_batch = s.global_batch;
  o.training.micro_batch = s.micro_batch;
  o.training.precision = s.precision;
  o.training.attention = s.attention;
  train::ParallelOptions& p = o.parallel;
  p.tp = s.tp;
  p.pp = s.pp;
  p.cp = s.cp;
  p.dp = s.dp;
  p.sequence_parallel = s.tp > 1;
  p.zero = s.zero;
  p.recompute = s.recompute;
  p.cp_comm = s.cp_comm;
  DLSIM_RETURN_IF_ERROR(train::LayoutStatus(train::CheckLayout(o)));
  p.dp = train::DataParallelSize(o);
  o.data = data;
  return o;
}

Result<DataRun> RunDataJob(const train::TrainOptions& o, const catalog::Catalogs& cat) {
  DLSIM_ASSIGN_OR_RETURN(const train::StepResult r, train::Simulate(o, cat, nullptr));
  DataRun run;
  run.feasible = r.feasible;
  run.reason = r.reason;
  if (!r.feasible || !r.data) return run;
  const train::DataSummary& d = *r.data;
  run.mean_s = d.mean_s;
  run.p50_s = d.p50_s;
  run.p99_s = d.p99_s;
  run.max_s = d.max_s;
  run.straggler_s = d.straggler_mean_s;
  run.tokens_per_s = Ratio(d.real_tokens_per_step, d.mean_s);
  run.padding = d.padding_fraction;
  run.micro_batches = d.max_micro_batches;
  return run;
}

Result<DataRun> RunJob(const catalog::Catalogs& cat, const JobSetup& s, const data::DataOptions& data) {
  auto o = MakeTrainOptions(cat, s, data);
  if (!o.ok()) {
    if (o.error().code != ErrorCode::kInfeasible) return o.error();
    DataRun run;
    run.reason = o.error().message;
    return run;
  }
  return RunDataJob(*o, cat);
}

Result<CsvTable> SkrullTableOneLengths() {
  return ParseCsv(embedded::SkrullTable1LengthsCsv(), "skrull_table1_lengths.csv");
}

Result<data::LengthSpec> CdfLengths(const CsvTable& cdf, const std::string& dataset, int64_t max_len) {
  constexpr double kFirstBucketLow = 32;  // the shortest sequence assumed in the "< 1K" bucket
  constexpr int kValuesPerBucket = 8;     // log-spaced lengths standing for one bucket of the CDF
  data::LengthSpec l;
  l.distribution = "empirical";
  l.max_len = max_len;
  double low = kFirstBucketLow, below = 0;
  for (size_t i = 0; i < cdf.rows.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(const std::string name, cdf.Text(i, "dataset"));
    if (name != dataset) continue;
    DLSIM_ASSIGN_OR_RETURN(const double high, cdf.Number(i, "below_tokens"));
    DLSIM_ASSIGN_OR_RETURN(const double percent, cdf.Number(i, "percent"));
    for (int k = 0; k < kValuesPerBucket; ++k) {  // bucket midpoints on a log scale
      l.values.push_back(std::round(low * std::pow(high / low, (k + 0.5) / kValuesPerBucket)));
      l.weights.push_back((percent - below) / kValuesPerBucket);
    }
    low = high;
    below = percent;
  }
  if (l.values.empty()) return Error::NotFound("skrull_table1_lengths.csv has no dataset '" + dataset + "'");
  return l;
}

}  // namespace dlsim::repro::internal
