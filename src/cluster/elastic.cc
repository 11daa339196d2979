#include "dlsim/cluster/elastic.h"

#include <algorithm>
#include <cmath>

#include "dlsim/core/rng.h"

namespace dlsim::cluster {

void MakeElastic(std::vector<JobSpec>& jobs, const ElasticOptions& o) {
  const Rng base = Rng(o.seed).Stream("cluster/elastic");
  for (JobSpec& j : jobs) {
    if (j.gpus <= 0 || (j.gpus == 1 && j.gpu_milli < 1000) || IsElastic(j)) continue;
    Rng r = base.Stream(std::to_string(j.id));
    if (!(r.NextDouble() < o.fraction)) continue;
    j.min_gpus = std::max(1, static_cast<int>(std::floor(j.gpus * o.min_factor)));
    j.max_gpus =
        std::max(j.gpus, std::min(o.max_gpus_cap, static_cast<int>(std::floor(j.gpus * o.max_factor))));
    j.scaling = o.scaling;
  }
}

double ElasticSpeedup(const JobSpec& job, int gpus) {
  if (!IsElastic(job) || !job.speed.empty() || job.gpus <= 0 || gpus == job.gpus) return 1;
  return std::pow(static_cast<double>(gpus) / job.gpus, job.scaling);
}

}  // namespace dlsim::cluster
