// How fast a job runs on a placement: the speed book maps a job's `speed` name to a model that
// gives steps per second on a placement shape. Duration jobs (speed empty) run at rate 1 on any
// shape: their trace gives the time on the requested allocation and nothing about placement.
//
// Models: a throughput table (Gavel's simulation_throughputs.json: steps/s per job type, GPU
// type and scale factor, consolidated and unconsolidated), and a training scenario
// (cluster/training_speed.h: the step time of a dlsim training job on each shape, computed by
// `train` and cached). Thread-safe once built (models cache behind a mutex).
#ifndef DLSIM_CLUSTER_SPEED_H_
#define DLSIM_CLUSTER_SPEED_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/cluster/cluster_state.h"
#include "dlsim/core/result.h"

namespace dlsim::cluster {

// What a model reports about one shape (for the JSON: why a spread job is slower).
struct ShapeSpeed {
  std::string shape;       // "a100-sxm4-80gb x [4,4]"
  double steps_per_s = 0;  // 0 when the shape cannot run the job
  std::string note;        // e.g. the step's bottleneck, or why the shape is infeasible
};

class SpeedModel {
 public:
  virtual ~SpeedModel() = default;
  // Steps per second on `shape`; Error::Infeasible when the job cannot run on it (too little
  // memory, a layout that does not map onto it); other errors are bugs in the inputs.
  virtual Result<double> StepsPerSecond(const PlacementShape& shape, const ClusterSpec& spec) const = 0;
  // The same after `work_done` steps of the job: for models whose speed changes as a job trains
  // (Pollux's statistical efficiency per epoch). The engine asks at each start and, under an
  // allocation policy, at each round. Default: StepsPerSecond().
  virtual Result<double> StepsPerSecondAt(const PlacementShape& shape, const ClusterSpec& spec,
                                          double work_done) const {
    return StepsPerSecond(shape, spec);
  }
  // The shapes evaluated so far, in shape order.
  virtual std::vector<ShapeSpeed> Evaluated(const ClusterSpec& spec) const = 0;
};

class SpeedBook {
 public:
  void Add(std::string name, std::shared_ptr<const SpeedModel> model);
  bool Contains(const std::string& name) const { return models_.count(name) > 0; }
  // Work per second of `job` on `shape` after `work_done`: 1 for duration jobs; the model's
  // steps/s otherwise.
  Result<double> Rate(const JobSpec& job, const PlacementShape& shape, const ClusterSpec& spec,
                      double work_done = 0) const;
  const std::map<std::string, std::shared_ptr<const SpeedModel>>& models() const { return models_; }

 private:
  std::map<std::string, std::shared_ptr<const SpeedModel>> models_;
};

// "TYPE x [a,b,c]".
std::string ShapeName(const PlacementShape& shape, const ClusterSpec& spec);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_SPEED_H_
