#include "dlsim/cluster/speed.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dlsim::cluster {

void SpeedBook::Add(std::string name, std::shared_ptr<const SpeedModel> model) {
  models_[std::move(name)] = std::move(model);
}

Result<double> SpeedBook::Rate(const JobSpec& job, const PlacementShape& shape, const ClusterSpec& spec,
                               double work_done) const {
  if (job.speed.empty()) return 1.0;
  auto it = models_.find(job.speed);
  if (it == models_.end())
    return Error::NotFound(fmt::format("job {} ('{}'): no speed entry '{}'", job.id, job.name, job.speed));
  return it->second->StepsPerSecondAt(shape, spec, work_done);
}

std::string ShapeName(const PlacementShape& shape, const ClusterSpec& spec) {
  const std::string& type = spec.gpu_types().at(shape.gpu_type);
  return fmt::format("{} x [{}]", type, fmt::join(shape.gpus_per_node, ","));
}

}  // namespace dlsim::cluster
