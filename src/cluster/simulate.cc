#include "dlsim/cluster/simulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "dlsim/core/machine_memory.h"
#include "engine.h"

namespace dlsim::cluster {
namespace {

Status CheckOptions(const ClusterOptions& o) {
  if (o.cluster.nodes().empty()) return Error::InvalidArgument("the cluster has no nodes");
  if (o.jobs.empty()) return Error::InvalidArgument("the trace has no jobs");
  if (static_cast<int64_t>(o.jobs.size()) > kMaxJobs)
    return Error::InvalidArgument(fmt::format("{} jobs; at most {} are simulated", o.jobs.size(), kMaxJobs));
  DLSIM_RETURN_IF_ERROR(CheckFitsMemory(
      fmt::format("{} jobs", o.jobs.size()), static_cast<double>(o.jobs.size()) * kRunBytesPerJob,
      "640 bytes per job measured", "simulate fewer jobs (a trace's `limit:`, or fewer synthetic jobs)"));
  if (o.sample_interval <= Duration::Zero())
    return Error::InvalidArgument("sample_interval must be positive");
  std::vector<int64_t> ids;
  ids.reserve(o.jobs.size());
  for (const JobSpec& j : o.jobs) ids.push_back(j.id);
  std::sort(ids.begin(), ids.end());
  if (auto dup = std::adjacent_find(ids.begin(), ids.end()); dup != ids.end())
    return Error::InvalidArgument(fmt::format(
        "job id {} appears more than once; every job needs its own id (records and reports key on it)",
        *dup));
  if (o.measure_from >= static_cast<int64_t>(o.jobs.size()))  // the report would show a JCT of 0
    return Error::InvalidArgument(
        fmt::format("measure_from {} is past the last of the {} jobs: no job would be measured",
                    o.measure_from, o.jobs.size()));
  if (std::none_of(o.jobs.begin(), o.jobs.end(), [](const JobSpec& j) { return j.gpus > 0; }))
    return Error::InvalidArgument(
        "no job asks for a GPU (every job has 0 GPUs): a GPU-cluster simulation of it would report 0% "
        "utilisation; check the trace's GPU column");
  for (const JobSpec& j : o.jobs) {
    if (!(j.arrival.ToSeconds() >= 0 && j.arrival.ToSeconds() <= kMaxArrivalS))
      return Error::InvalidArgument(fmt::format("job {}: arrives at {:g} s; arrivals must be in 0..{:g} s",
                                                j.id, j.arrival.ToSeconds(), kMaxArrivalS));
    if (!(j.work > 0) || !std::isfinite(j.work))
      return Error::InvalidArgument(
          fmt::format("job {}: work must be positive and finite, found {}", j.id, j.work));
    if (j.gpus < 0 || j.gpus > kMaxJobGpus || j.gpu_milli < 1 || j.gpu_milli > 1000)
      return Error::InvalidArgument(
          fmt::format("job {}: {} GPUs at {} milli is out of range", j.id, j.gpus, j.gpu_milli));
  }
  return Status::Ok();
}

}  // namespace

std::optional<std::string> RestartStarvation(const ClusterOptions& o, const SchedulingPolicy& policy) {
  // Policies that allocate per round (Pollux, Gavel, Aryl's allocator) restart only the jobs whose allocation
  // changed; the rank-based preemptive ones (LAS, Tiresias) can preempt any job every round.
  if (!policy.Preemptive() || policy.allocator() != nullptr || policy.Round() <= Duration::Zero() ||
      o.restart_overhead < policy.Round())
    return std::nullopt;
  return fmt::format(
      "{:g} s is not shorter than round_s ({:g} s): under {}, a job preempted every round would never "
      "progress",
      o.restart_overhead.ToSeconds(), policy.Round().ToSeconds(), o.policy);
}

Result<ClusterResult> Simulate(const ClusterOptions& options, const catalog::Catalogs& catalogs,
                               report::Sink* sink) {
  DLSIM_RETURN_IF_ERROR(CheckOptions(options));
  std::shared_ptr<const SchedulingPolicy> policy = options.custom_policy;
  if (!policy) {
    DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<SchedulingPolicy> p,
                           BuiltinPolicies().Create(options.policy, options.policy_params));
    policy = std::move(p);
  }
  if (std::optional<std::string> why = RestartStarvation(options, *policy))
    return Error::InvalidArgument(*why);
  if (policy->allocator() != nullptr && policy->Round() <= Duration::Zero())
    return Error::InvalidArgument("policy '" + options.policy +
                                  "' allocates per round but has no round length");
  DLSIM_ASSIGN_OR_RETURN(auto placement, BuiltinPlacements().Create(options.placement));
  if (sink)
    for (size_t n = 0; n < options.cluster.nodes().size(); ++n)
      sink->OnProcessName({static_cast<int>(n), options.cluster.nodes()[n].name, static_cast<int>(n)});
  Engine engine(options, *policy, *placement, sink);
  DLSIM_ASSIGN_OR_RETURN(ClusterResult r, engine.Run());
  r.policy = options.policy;
  r.placement = options.placement;
  return r;
}

}  // namespace dlsim::cluster
