// Shared pieces of the validation sets (src/validate/sets.cc, held_out_sets.cc): the runner, the row
// record, the source line, and the hardware and NeMo recipes that several published tables share. Private to
// src/validate; every choice is explained in docs/validation.md.
#ifndef DLSIM_SRC_VALIDATE_SET_SCENARIOS_H_
#define DLSIM_SRC_VALIDATE_SET_SCENARIOS_H_

#include <memory>
#include <string>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/csv.h"
#include "dlsim/core/result.h"
#include "dlsim/train/options.h"
#include "dlsim/train/step_model.h"
#include "dlsim/validate/validation.h"

namespace dlsim::validate::internal {

struct ServingRuns;  // serving_sets.cc: every row of vllm_public_serving.csv, simulated once

// Simulates one scenario with the borrowed catalogs (which outlive the runner). A runner serves one thread;
// `serving` keeps the serving rows' runs for the four sets that score them.
struct Runner {
  const catalog::Catalogs& catalogs;
  std::shared_ptr<const ServingRuns> serving = nullptr;
  Result<train::StepResult> Run(const train::TrainOptions& o) const;
};

// The row of a simulated scenario: its prediction, or infeasible with the reason (error or model's reason).
ValidationRow Row(std::string label, double measured, const Result<train::StepResult>& r);
// The same for scenario `o` simulated by `run`, keeping `o` in the row (ValidationRow::options).
ValidationRow Row(std::string label, double measured, const train::TrainOptions& o, const Runner& run);

// The file's first comment line (its source), or the file name when it has none.
std::string Source(const CsvTable& t);

// A DGX A100 (Selene, vTrain's node): 8 x A100 80GB, NVSwitch, 8 x HDR 200 Gb/s.
void DgxA100(train::TrainOptions& o, int gpus);

// DGX H100 nodes: 8 x H100 SXM5 80GB, NVSwitch, 8 x NDR 400 Gb/s (the GPU count is left as it is).
void DgxH100(train::TrainOptions& o);

// DGX H100 nodes and NeMo's FP8 recipe: flash attention, distributed optimizer, no recomputation, bf16
// gradient reduction.
void NemoH100Recipe(train::TrainOptions& o);

// Moves a NeMo H100 scenario to DGX B200 nodes (8 GPUs and 8 x 400 Gb/s NICs, as DGX H100).
void DgxB200(train::TrainOptions& o);

// The scenario of row `i` of a NeMo-style table (columns gpus, seq_len, global_batch, tp, pp, cp) for model
// `m` with the given micro-batch and virtual pipeline stages, on NemoH100Recipe, with sequence parallelism
// and TP communication overlap whenever tp > 1. Precondition: the columns exist and hold numbers.
train::TrainOptions NemoRowWith(const CsvTable& t, size_t i, const model::ModelSpec& m, int micro_batch,
                                int vp);

// NemoRowWith with the table's micro_batch and vp columns.
train::TrainOptions NemoRow(const CsvTable& t, size_t i, const model::ModelSpec& m);

// The measured step time of a row that publishes tokens/s per GPU: global batch x seq / (tokens/s/GPU x
// GPUs).
double StepFromTokensPerGpu(const CsvTable& t, size_t i, const train::TrainOptions& o);

}  // namespace dlsim::validate::internal

#endif  // DLSIM_SRC_VALIDATE_SET_SCENARIOS_H_
