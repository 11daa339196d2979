// Building what a serving simulation needs from the catalogs, and the module's entry point
// (the module template, docs/design/architecture.md). Used by `dlsim serve`, the capacity search,
// reproductions and benchmarks.
//
//   auto env = serve::MakeServeEnvironment(catalogs.compute, catalogs.network);  // Result<unique_ptr<>>
//   auto cost = serve::MakeCostModel(options, **env);                           // Result<unique_ptr<>>
//   auto r = serve::Simulate(options, **cost, (*env)->schedulers, (*env)->routers, sink);
//   // or, all in one (serve/simulate.h):  auto r = serve::Simulate(options, catalogs, sink);
//
// A ServeEnvironment is immutable after construction and may be shared by threads.
#ifndef DLSIM_SERVE_SETUP_H_
#define DLSIM_SERVE_SETUP_H_

#include <memory>
#include <string>
#include <vector>

#include "dlsim/cost/compute_calibration.h"
#include "dlsim/net/calibration.h"
#include "dlsim/serve/capacity.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::serve {

struct ServeEnvironment {
  cost::ComputeCalibration compute;
  std::shared_ptr<const net::CollectiveModel> collective;
  std::vector<OperatorProfile> profiles;
  CollectiveOverhead overhead;  // embedded data/serving/serving_calibration.csv (engine splitwise-2023)
  std::shared_ptr<const AllReduceTable> allreduce;  // embedded data/serving/tp_allreduce_latency.csv
  SchedulerRegistry schedulers{"serving-scheduler"};
  RouterRegistry routers{"router"};
};

// Registries with the builtins, the embedded Vidur profiles and serving calibration, and the
// "nccl" collective model. Error: an embedded file that does not parse (a build defect).
Result<std::unique_ptr<ServeEnvironment>> MakeServeEnvironment(const cost::ComputeCalibration& compute,
                                                               const net::NetworkCalibration& network);

// The CSV of data/serving/serving_calibration.csv (columns parameter, value; rows
// tp_collective_overhead_us, tp_ring_step_latency_us (required), tp_large_allreduce_threshold_mib,
// tp_large_allreduce_us_per_mib (default 0)) and its embedded copy. Error: kParse /
// kInvalidArgument naming the file (also for an unknown parameter or a negative value).
Result<CollectiveOverhead> ParseCollectiveOverhead(std::string_view csv_text, std::string file_name);
Result<CollectiveOverhead> DefaultCollectiveOverhead();

// CostInputs: the inputs MakeCostModel uses (tests vary them). MakeCostModel: the profiled cost
// model for the scenario's (GPU, model, TP): measured operators when the embedded profiles cover
// it, the roofline model otherwise.
ProfiledCostInputs CostInputs(const ServeOptions& options, const ServeEnvironment& env);
Result<std::unique_ptr<IterationCostModel>> MakeCostModel(const ServeOptions& options,
                                                          const ServeEnvironment& env);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_SETUP_H_
