// Elastic jobs: a fraction of any trace made elastic (Aryl's workload: "elastic jobs with min/max
// workers and a scaling curve"), and the speed of an elastic duration job on another GPU count.
//
//   cluster::ElasticOptions e{.fraction = 0.3, .max_factor = 4, .scaling = 0.8, .seed = 1};
//   cluster::MakeElastic(jobs, e);   // ~30% of the jobs: min = gpus, max = 4 x gpus
//
// Values only; thread-safe.
#ifndef DLSIM_CLUSTER_ELASTIC_H_
#define DLSIM_CLUSTER_ELASTIC_H_

#include <cstdint>
#include <vector>

#include "dlsim/cluster/job.h"

namespace dlsim::cluster {

struct ElasticOptions {
  double fraction = 0;    // share of the GPU jobs made elastic, drawn per job (0..1)
  double min_factor = 1;  // min_gpus = max(1, floor(gpus x min_factor)), 0 < min_factor <= 1
  double max_factor = 4;  // max_gpus = gpus x max_factor (>= 1), capped at max_gpus_cap
  int max_gpus_cap = 64;
  double scaling = 0.8;  // JobSpec::scaling of the elastic jobs (0..1]
  uint64_t seed = 1;
};

// Marks jobs elastic in place, each GPU job with probability `fraction` (its own seeded draw, so
// the same job is chosen whatever the others are). Jobs already elastic are left as they are.
void MakeElastic(std::vector<JobSpec>& jobs, const ElasticOptions& o);

// Speed of a duration job on `gpus` GPUs relative to its request: (gpus / job.gpus)^scaling for
// an elastic job, 1 otherwise (and for steps jobs, whose speed model prices the count).
double ElasticSpeedup(const JobSpec& job, int gpus);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_ELASTIC_H_
