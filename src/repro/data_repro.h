// Shared machinery of the data-aware reproductions (ByteTransformer, DistCA,
// ChunkFlow, Skrull): build a training job from a few settings, run it
// with real micro-batch contents for a few steps, and read the step-time
// statistics. Private to src/repro.
#ifndef DLSIM_SRC_REPRO_DATA_REPRO_H_
#define DLSIM_SRC_REPRO_DATA_REPRO_H_

#include <functional>
#include <string>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/csv.h"
#include "dlsim/core/result.h"
#include "dlsim/data/data_options.h"
#include "dlsim/train/options.h"
#include "sweep.h"

namespace dlsim::repro::internal {

// A training job in scenario terms. MakeTrainOptions builds the options directly, with the
// node's hardware defaults (train::ApplyNodeDefaults) and the layout rules
// (train::CheckLayout) that `dlsim train` applies to a scenario file.
struct JobSetup {
  std::string model = "llama3-8b";                 // catalog name
  std::function<void(model::ModelSpec&)> reshape;  // shape overrides, applied to the catalog entry
  std::string node = "dgx-h100";
  int gpus = 8;
  int tp = 1, pp = 1, cp = 1, dp = 0;  // dp 0: gpus / (tp pp cp)
  int seq_len = 8192;
  int global_batch = 8;
  int micro_batch = 1;
  hw::DType precision = hw::DType::kBf16;
  train::Recompute recompute = train::Recompute::kSelective;
  model::AttentionImpl attention = model::AttentionImpl::kFlash;  // core-attention kernel
  int zero = 1;                                                   // ZeRO stage
  train::CpComm cp_comm = train::CpComm::kP2p;                    // causal CP's K/V exchange
};

// The options of `s` with `data`. Errors: kNotFound for a model or node the catalogs do not
// hold, kInfeasible for a layout that breaks a rule of train::CheckLayout.
Result<train::TrainOptions> MakeTrainOptions(const catalog::Catalogs& cat, const JobSetup& s,
                                             const data::DataOptions& data);

// What one data-aware run gives (seconds per step over the simulated steps).
struct DataRun {
  bool feasible = false;
  std::string reason;  // why not, when infeasible (e.g. out of memory)
  double mean_s = 0, p50_s = 0, p99_s = 0, max_s = 0;
  double straggler_s = 0;   // mean data-parallel straggler gap
  double tokens_per_s = 0;  // real tokens per second
  double padding = 0;       // fraction of computed tokens that are padding
  int micro_batches = 0;    // most micro-batches of any replica in a step
};

// Runs the data-aware training simulation of `o` (o.data must be set). Errors:
// a context that cannot be built, an unknown policy or distribution.
Result<DataRun> RunDataJob(const train::TrainOptions& o, const catalog::Catalogs& cat);

// MakeTrainOptions + RunDataJob; a layout that breaks a rule (batch or heads do
// not divide) is an infeasible run with the rule's message as reason, not an
// error.
Result<DataRun> RunJob(const catalog::Catalogs& cat, const JobSetup& s, const data::DataOptions& data);

// Table 1 of Skrull (arXiv 2505.19609; data/repro/skrull_table1_lengths.csv, compiled in): the
// measured length CDFs of Wikipedia-CN, LMSys-Chat-1M and ChatQA2 (columns dataset, below_tokens,
// percent).
Result<CsvTable> SkrullTableOneLengths();

// The empirical length mix of `dataset` from such a CDF table: each bucket's share spread over 8
// log-spaced lengths (the first bucket from 32 tokens), truncated at max_len. NotFound for a dataset
// the table lacks.
Result<data::LengthSpec> CdfLengths(const CsvTable& cdf, const std::string& dataset, int64_t max_len);

// The fastest feasible run of one side of a comparison and its configuration (sweep.h).
template <typename Config>
using FastestRun = Fastest<DataRun, Config>;

}  // namespace dlsim::repro::internal

#endif  // DLSIM_SRC_REPRO_DATA_REPRO_H_
