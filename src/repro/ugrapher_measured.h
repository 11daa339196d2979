// The uGrapher reproduction's measured pass: the GNN kernel cost model's DGL and PyG baselines
// against graph aggregation measured on one H200 (data/profiles/h200/gnn_aggregation.csv): cuSPARSE
// CSR SpMM (the kernel DGL's sum aggregation calls) and PyTorch's gather + index_add_ / scatter_reduce_
// (PyG's gather-scatter), on the measured graphs regenerated (R-MAT a, b, c = 0.57, 0.19, 0.19 and
// uniform, scale 20, edge factor 16, directed, duplicates kept). Private to src/repro.
#ifndef DLSIM_SRC_REPRO_UGRAPHER_MEASURED_H_
#define DLSIM_SRC_REPRO_UGRAPHER_MEASURED_H_

#include <nlohmann/json.hpp>
#include <string>

#include "dlsim/core/result.h"
#include "dlsim/gnn/kernels/graph_kernel_cost.h"
#include "dlsim/gnn/kernels/graph_op.h"
#include "dlsim/gnn/kernels/graph_schedule.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro::internal {

struct MeasuredAggregation {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();  // one per measured kernel at scale 20
  std::string summary;  // the geometric-mean ratios per kernel family, and the hub bound
  // The measured R-MAT cuSPARSE time at 16 features over its hub's in-degree: the most a warp's
  // gather step could take if the hub row were walked serially (DGL's mapping in the model).
  double hub_step_bound_ns = 0;
};

// The reproduction's graph operators and framework baselines (its own registries, borrowed).
struct BaselineModels {
  const gnn::GraphOpRegistry& ops;
  const gnn::StaticKernelPolicy& dgl;
  const gnn::StaticKernelPolicy& pyg;
};

// Errors: the embedded CSV malformed (file, line, column); no H200 in the catalog.
Result<MeasuredAggregation> H200Aggregation(const ReproEnv& env, const BaselineModels& models,
                                            const gnn::KernelModelParams& params);

}  // namespace dlsim::repro::internal

#endif  // DLSIM_SRC_REPRO_UGRAPHER_MEASURED_H_
