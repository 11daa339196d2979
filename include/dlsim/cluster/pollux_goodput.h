// Pollux's goodput model (Qiao et al., OSDI'21 §3; AdaptDL artifact simulator/goodput.py,
// applications.py, simulator.py: Job.step and Job.update_local_bsz).
//
// Throughput: a step of `atomic` samples per replica with `accum` accumulation steps takes
//   accum x T_acc + T_opt,   T_acc = alpha_c + beta_c x atomic,
//   T_opt = (T_acc^gamma + T_net^gamma)^(1/gamma),
//   T_net = alpha_n + beta_n x max(R-2, 0) across nodes, alpha_r + beta_r x max(R-2, 0) within one
//           node with R > 1 replicas, ~0 for one replica.
// The seven parameters are fitted to the application's placements.csv and scalability.csv by
// goodput.py's objective (RMS log error of T_acc = step - sync and of T_opt = step, plus its two
// regularisers), minimised here by a deterministic Nelder-Mead search.
// Statistical efficiency at total batch B (init batch B0, scale s = B/B0, gradient statistics
// sqr/var of the current epoch from the validation runs): gain = (var + sqr) / (var/s + sqr);
// progress per step is `gain` iterations at B0.
// Goodput (progress per second) = gain / step time, where the step time of a placement measured
// in placements.csv is interpolated there in the local batch (as applications.py does) and the
// fitted model gives the others. The batch size is chosen per allocation and epoch as
// update_local_bsz does: maximise the model's goodput over 50 geometric batch sizes in
// [max(B0, min_local x R), B_max], or use the application's fixed batch size.
// Immutable after construction; thread-safe.
#ifndef DLSIM_CLUSTER_POLLUX_GOODPUT_H_
#define DLSIM_CLUSTER_POLLUX_GOODPUT_H_

#include <array>
#include <map>
#include <memory>
#include <vector>

#include "dlsim/cluster/pollux_profile.h"
#include "dlsim/cluster/speed.h"

namespace dlsim::cluster {

struct PolluxPerfParams {
  double alpha_c = 0.1, beta_c = 0.01;  // compute: constant, per sample
  double alpha_n = 0.1, beta_n = 0.01;  // network across nodes: constant, per replica beyond 2
  double alpha_r = 0.1, beta_r = 0.01;  // network within a node
  double gamma = 1.001;                 // overlap of compute and network, in [1, 10]
};

// (T_acc, T_opt) in seconds.
std::pair<double, double> PolluxStepTimes(const PolluxPerfParams& p, int nodes, int replicas,
                                          double atomic_bsz);
// goodput.py's objective on `samples` (lower is better).
double PolluxFitObjective(const PolluxPerfParams& p, const std::vector<PolluxStepSample>& samples);
// The fitted parameters (deterministic): `restarts` Nelder-Mead searches of `iterations` each,
// on the mean step times per (nodes, replicas, local batch); samples must be non-empty. The
// defaults converge on the shipped profiles (pollux_test checks a 4x longer search gains < 1e-4).
PolluxPerfParams FitPolluxPerfParams(const std::vector<PolluxStepSample>& samples, int restarts = 3,
                                     int iterations = 700);

struct PolluxBatch {
  int atomic_bsz = 0;   // samples per replica per micro-step
  int accum_steps = 0;  // extra micro-steps before the optimiser step
  int replicas = 0;
  int Total() const { return atomic_bsz * (accum_steps + 1) * replicas; }
};

class PolluxGoodput final : public SpeedModel {
 public:
  explicit PolluxGoodput(std::shared_ptr<const PolluxApp> app);
  const PolluxApp& app() const { return *app_; }
  const PolluxPerfParams& params() const { return params_; }
  // Seconds per optimiser step on `placement` (replicas per node) at `atomic` samples, with accum.
  double StepSeconds(const std::vector<int>& placement, const PolluxBatch& b) const;
  // The batch Pollux runs on (nodes, replicas) during `epoch`; replicas 0 when it cannot run
  // (more replicas than the application allows or than its largest batch can feed).
  PolluxBatch ChooseBatch(int nodes, int replicas, int epoch) const;
  // gain / step time: progress per second; 0 when it cannot run.
  double Goodput(const std::vector<int>& placement, int epoch) const;
  // Statistical efficiency gain (1 at the initial batch size) during `epoch`.
  double Gain(int batch_size, int epoch) const;

  Result<double> StepsPerSecond(const PlacementShape& shape, const ClusterSpec& spec) const override {
    return StepsPerSecondAt(shape, spec, 0);
  }
  Result<double> StepsPerSecondAt(const PlacementShape& shape, const ClusterSpec& spec,
                                  double work_done) const override;
  std::vector<ShapeSpeed> Evaluated(const ClusterSpec& spec) const override { return {}; }

 private:
  double ModelGoodput(int nodes, int replicas, const PolluxBatch& b, int epoch) const;
  std::shared_ptr<const PolluxApp> app_;
  PolluxPerfParams params_;
  // Measured placements (lexicographically smallest rotation) -> (local bsz, step, sync), by bsz.
  std::map<std::vector<int>, std::vector<std::array<double, 3>>> measured_;
};

// One speed entry "pollux:<name>" per application.
void AddPolluxApps(const std::map<std::string, PolluxApp>& apps, SpeedBook& book);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLLUX_GOODPUT_H_
