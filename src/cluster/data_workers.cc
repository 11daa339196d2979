// Engine: input-bound rates and data workers (cluster/input_pipeline.h, GoldMiner). A running job's
// rate is min(its GPU rate, what its input pipeline can feed); a policy that scales data workers
// re-plans the cluster's idle cores after every pass, and the jobs whose rate changes are re-rated
// (their work is settled to now and their completion moved).
#include <limits>

#include "engine.h"

namespace dlsim::cluster {

double Engine::CappedRate(int j, const Allocation& a, double gpu_rate) const {
  const JobSpec& job = Job(j);
  if (!(job.input_core_s > 0)) return gpu_rate;
  return InputBoundRate(job, gpu_rate, InputShareOf(job, a, options_.cluster), data_cores_[j]);
}

void Engine::ScaleDataWorkers() {
  const ClusterSpec& spec = options_.cluster;
  if (total_cores_ < 0) {
    total_cores_ = 0;
    for (const ClusterNode& n : spec.nodes()) total_cores_ += n.cpu_milli / 1000.0;
  }
  std::vector<int> jobs(running_.begin(), running_.end());
  std::sort(jobs.begin(), jobs.end());  // job order: the plan does not depend on running_'s swaps
  std::vector<DataWorkerDemand> demands;
  double idle = total_cores_;
  for (int j : jobs) {
    const JobSpec& job = Job(j);
    const InputShare share = InputShareOf(job, prog_[j].allocation, spec);
    if (!(job.input_core_s > 0) || !(share.local_cores > 0) || !(gpu_rate_[j] > 0)) {
      idle -= share.local_cores;  // a job without an input model keeps its whole local share
      continue;
    }
    DataWorkerDemand d{j,
                       prog_[j].held_milli / 1000.0,
                       gpu_rate_[j],
                       job.input_core_s,
                       share.local_cores,
                       std::numeric_limits<double>::infinity()};
    if (share.nic_bytes_per_s > 0 && job.input_bytes > 0)
      d.remote_cap = share.nic_bytes_per_s / job.input_bytes;
    idle -= LocalCoresUsed(d);
    demands.push_back(d);
  }
  if (demands.empty()) return;
  const std::vector<double> remote = policy_.data_workers()->PlanDataWorkers(demands, std::max(idle, 0.0));
  for (size_t i = 0; i < demands.size(); ++i) {
    const int j = demands[i].job;
    data_cores_[j] = i < remote.size() ? std::max(remote[i], 0.0) : 0.0;
    const double rate = DemandRate(demands[i], data_cores_[j]);
    if (rate > 0 && rate != prog_[j].rate) SetRate(j, rate);
  }
}

// Settles a running job's work to now (or to the end of its restart overhead) and continues at
// `rate`.
void Engine::SetRate(int j, double rate) {
  JobProgress& p = prog_[j];
  const TimePoint from = std::max(queue_.Now(), p.progress_from);
  p.remaining = RemainingAt(p, from);
  p.progress_from = from;
  p.rate = rate;
  queue_.Cancel(finish_event_[j]);
  finish_event_[j] = queue_.Schedule(from + Seconds(p.remaining / p.rate), [this, j] {
    Stop(j, JobStatus::kDone);
    RequestPass();
  });
}

}  // namespace dlsim::cluster
