// The speed of a dlsim training job on each placement shape: the training scenario (model,
// layout, batch) is simulated by `train` with the shape's GPU type, GPU count and GPUs per node,
// and the step time is cached per shape. This is what makes a job spread over four nodes really
// slower than the same job packed into one: its tensor- and data-parallel traffic crosses the
// NICs instead of NVLink.
//
// A shape maps onto the training simulator as: gpu = the shape's GPU type (a catalog GPU name
// or alias), gpus = the shape's total, gpus_per_node = its smallest per-node count (an uneven
// shape such as [4, 2, 2] is priced as if every node held the fewest, the bound set by the node
// that communicates most), NICs per node scaled from the scenario's to the GPUs used on a node
// (at least 1). The scenario's data-parallel degree follows the GPU count (dp: 0).
// Thread-safe: the cache is behind a mutex.
#ifndef DLSIM_CLUSTER_TRAINING_SPEED_H_
#define DLSIM_CLUSTER_TRAINING_SPEED_H_

#include <map>
#include <mutex>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/cluster/speed.h"
#include "dlsim/train/options.h"

namespace dlsim::cluster {

class TrainingSpeed final : public SpeedModel {
 public:
  // `catalogs` must outlive the model.
  TrainingSpeed(train::TrainOptions scenario, const catalog::Catalogs& catalogs)
      : scenario_(std::move(scenario)), catalogs_(&catalogs) {}
  Result<double> StepsPerSecond(const PlacementShape& shape, const ClusterSpec& spec) const override;
  std::vector<ShapeSpeed> Evaluated(const ClusterSpec& spec) const override;
  // The training options for `shape` (exposed for tests).
  train::TrainOptions OptionsFor(const PlacementShape& shape, const ClusterSpec& spec) const;

 private:
  struct Entry {
    double steps_per_s = 0;
    std::string note;
    std::optional<Error> error;
  };
  Entry Evaluate(const PlacementShape& shape, const ClusterSpec& spec) const;
  train::TrainOptions scenario_;
  const catalog::Catalogs* catalogs_;
  mutable std::mutex mu_;
  mutable std::map<PlacementShape, Entry> cache_;
};

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_TRAINING_SPEED_H_
