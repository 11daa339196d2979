#include "dlsim/cluster/synthetic.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "dlsim/core/machine_memory.h"
#include "dlsim/core/rng.h"

namespace dlsim::cluster {
namespace {

// E[10^U(a, b)] = (10^b - 10^a) / ((b - a) ln 10).
double MeanPow10(double a, double b) {
  return (std::pow(10, b) - std::pow(10, a)) / ((b - a) * std::log(10.0));
}

int DrawGpus(Rng& rng) {
  const double r = rng.NextDouble();
  return r < 0.7 ? 1 : r <= 0.8 ? 2 : r <= 0.95 ? 4 : 8;
}

double DrawDuration(Rng& rng) {
  const bool short_job = rng.NextDouble() < 0.8;
  return 60 * std::pow(10, short_job ? SampleUniform(rng, 1.5, 3) : SampleUniform(rng, 3, 4));
}

// Per GPU count (1, 2, 4, 8): the table's types that run on it on the reference GPU, with steps/s.
using TypeChoices = std::map<int, std::vector<std::pair<std::string, double>>>;

Result<TypeChoices> ChoicesOf(const SyntheticOptions& o) {
  TypeChoices c;
  for (int gpus : {1, 2, 4, 8}) {
    if (!o.multi_gpu && gpus > 1) break;
    for (const std::string& type : o.job_types->job_types) {
      auto it = o.job_types->steps_per_s.find({type, o.reference_gpu, gpus, true});
      if (it != o.job_types->steps_per_s.end() && it->second > 0) c[gpus].push_back({type, it->second});
    }
    if (c[gpus].empty())
      return Error::InvalidArgument(fmt::format(
          "synthetic job types: no type of the throughput table runs on {} x {}", gpus, o.reference_gpu));
  }
  return c;
}

// Gavel's generate_job: a type among those that run on the job's GPUs; steps = duration x speed.
void DrawType(const TypeChoices& choices, Rng& rng, JobSpec& j) {
  const auto& list = choices.at(j.gpus);
  const auto& [type, steps_per_s] = list[rng.NextBelow(list.size())];
  j.speed = type;
  j.work *= steps_per_s;
}

}  // namespace

double GavelMixMeanGpuSeconds(bool multi_gpu) {
  const double mean_gpus = multi_gpu ? 0.7 * 1 + 0.1 * 2 + 0.15 * 4 + 0.05 * 8 : 1;
  const double mean_s = 60 * (0.8 * MeanPow10(1.5, 3) + 0.2 * MeanPow10(3, 4));
  return mean_gpus * mean_s;  // GPUs and duration are drawn independently
}

double GavelMixJobsPerHour(const SyntheticOptions& o) {
  if (o.jobs_per_hour > 0) return o.jobs_per_hour;
  if (o.cluster_gpus <= 0 || !(o.load > 0)) return 0;
  return o.load * static_cast<double>(o.cluster_gpus) / GavelMixMeanGpuSeconds(o.multi_gpu) * 3600;
}

Result<std::vector<JobSpec>> GenerateGavelMix(const SyntheticOptions& o) {
  if (o.jobs < 1 || o.jobs > kMaxJobs)
    return Error::InvalidArgument(fmt::format("synthetic jobs: expected 1..{}, found {}", kMaxJobs, o.jobs));
  DLSIM_RETURN_IF_ERROR(CheckFitsMemory(fmt::format("synthetic jobs: {}", o.jobs),
                                        static_cast<double>(o.jobs) * kRunBytesPerJob,
                                        "640 bytes per job measured", "draw fewer jobs"));
  const double per_hour = GavelMixJobsPerHour(o);
  if (per_hour <= 0)
    return Error::InvalidArgument("synthetic load needs a positive load and a cluster with GPUs");
  TypeChoices choices;
  if (o.job_types) {
    DLSIM_ASSIGN_OR_RETURN(choices, ChoicesOf(o));
  }
  Rng root(o.seed);
  Rng arrivals = root.Stream("cluster/arrivals"), sizes = root.Stream("cluster/gpus"),
      durations = root.Stream("cluster/durations"), weights = root.Stream("cluster/priority"),
      types = root.Stream("cluster/job-types");
  std::vector<JobSpec> jobs;
  jobs.reserve(o.jobs);
  double t = 0;
  for (int64_t i = 0; i < o.jobs; ++i) {
    JobSpec j;
    j.id = i;
    j.name = fmt::format("job-{}", i);
    j.arrival = TimePoint::Start() + Seconds(t);
    j.gpus = DrawGpus(sizes);
    if (!o.multi_gpu) j.gpus = 1;  // drawn anyway, as Gavel does, so the other streams stay put
    j.work = DrawDuration(durations);
    j.priority = weights.NextDouble() < 0.2 && o.multi_priority ? 5 : 1;
    if (o.job_types) DrawType(choices, types, j);
    jobs.push_back(std::move(j));
    t += SampleExponential(arrivals, per_hour / 3600);
  }
  return jobs;
}

}  // namespace dlsim::cluster
