#include "dlsim/cluster/training_speed.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "dlsim/train/simulate.h"

namespace dlsim::cluster {

train::TrainOptions TrainingSpeed::OptionsFor(const PlacementShape& shape, const ClusterSpec& spec) const {
  train::TrainOptions o = scenario_;
  const int gpus = std::accumulate(shape.gpus_per_node.begin(), shape.gpus_per_node.end(), 0);
  const int per_node = shape.gpus_per_node.empty() ? 1 : shape.gpus_per_node.back();  // sorted descending
  const int base_gpn = std::max(1, scenario_.hardware.gpus_per_node);
  o.hardware.gpu = spec.gpu_types().at(shape.gpu_type);
  o.hardware.gpus = gpus;
  o.hardware.gpus_per_node = per_node;
  o.hardware.nics_per_node = std::max(1, scenario_.hardware.nics_per_node * per_node / base_gpn);
  o.parallel.dp = 0;
  return o;
}

TrainingSpeed::Entry TrainingSpeed::Evaluate(const PlacementShape& shape, const ClusterSpec& spec) const {
  Entry e;
  Result<train::StepResult> r = train::Simulate(OptionsFor(shape, spec), *catalogs_, nullptr);
  if (!r.ok()) {
    e.error = r.error();
    e.note = r.error().message;
  } else if (!r->feasible) {
    e.error = Error::Infeasible(r->reason);
    e.note = r->reason;
  } else {
    e.steps_per_s = 1.0 / r->step_time_s;
    e.note = fmt::format("step {:.4g} s; {}", r->step_time_s, r->bottleneck);
  }
  return e;
}

Result<double> TrainingSpeed::StepsPerSecond(const PlacementShape& shape, const ClusterSpec& spec) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cache_.find(shape);
  if (it == cache_.end()) it = cache_.emplace(shape, Evaluate(shape, spec)).first;
  if (it->second.error) return *it->second.error;
  return it->second.steps_per_s;
}

std::vector<ShapeSpeed> TrainingSpeed::Evaluated(const ClusterSpec& spec) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ShapeSpeed> out;
  for (const auto& [shape, e] : cache_) out.push_back({ShapeName(shape, spec), e.steps_per_s, e.note});
  return out;
}

}  // namespace dlsim::cluster
