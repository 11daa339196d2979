// Engine::Collect: per-job records and the summary, after the event queue has drained.
#include <algorithm>

#include "engine.h"

namespace dlsim::cluster {
namespace {

JobRecord RecordOf(const JobSpec& job, const JobProgress& p, const std::string& reason) {
  JobRecord r;
  r.id = job.id;
  r.name = job.name;
  r.gpus = job.gpus;
  r.arrival_s = job.arrival.ToSeconds();
  r.completed = p.status == JobStatus::kDone;
  r.preemptions = p.preemptions;
  r.resizes = p.resizes;
  r.nodes_spanned = p.nodes_spanned;
  r.alone_s = job.work / p.reference_rate;
  r.reason = reason;
  if (p.started) r.start_s = p.first_start.ToSeconds();
  if (r.completed) {
    r.finish_s = p.finish.ToSeconds();
    r.jct_s = r.finish_s - r.arrival_s;
    r.run_s = p.executed_s;
    r.queued_s = std::max(0.0, r.jct_s - r.run_s);
  }
  return r;
}

}  // namespace

ClusterResult Engine::Collect() {
  ClusterResult out;
  out.total_gpus = options_.cluster.total_gpus();
  ClusterSummary& s = out.summary;
  s.jobs = static_cast<int64_t>(order_.size());
  const int64_t to = options_.measure_to > 0 ? options_.measure_to : s.jobs;
  std::vector<double> jct, queued;
  double rho_sum = 0;
  for (size_t k = 0; k < order_.size(); ++k) {
    const int j = static_cast<int>(k);
    JobProgress& p = prog_[j];
    if (p.status == JobStatus::kWaiting) {
      reason_[j] =
          "never started: " + (reason_[j].empty() ? std::string("no placement was ever found") : reason_[j]);
      p.status = JobStatus::kNeverFits;
    }
    JobRecord r = RecordOf(Job(j), p, reason_[j]);
    s.never_fit += p.status == JobStatus::kNeverFits;
    if (r.completed) {
      ++s.completed;
      s.makespan_s = std::max(s.makespan_s, r.finish_s);
      const bool measured = static_cast<int64_t>(k) >= options_.measure_from && static_cast<int64_t>(k) < to;
      if (measured) {
        jct.push_back(r.jct_s);
        queued.push_back(r.queued_s);
        const double rho = r.alone_s > 0 ? r.jct_s / r.alone_s : 1;
        rho_sum += rho;
        s.rho_max = std::max(s.rho_max, rho);
      }
    }
    if (options_.keep_records) out.jobs.push_back(std::move(r));
  }
  s.measured = static_cast<int64_t>(jct.size());
  s.rho_mean = jct.empty() ? 0 : rho_sum / static_cast<double>(jct.size());
  s.jct_s = Summarize(jct);
  s.queued_s = Summarize(queued);
  const double busy_gpu_s = (busy_integral_ + bucket_) / 1000.0;
  s.utilisation = s.makespan_s > 0 && out.total_gpus > 0
                      ? busy_gpu_s / (static_cast<double>(out.total_gpus) * s.makespan_s)
                      : 0;
  CollectCapacity(s, out.total_gpus);
  s.preemptions = preemptions_;
  s.resizes = resizes_;
  s.passes = passes_;
  s.events = static_cast<int64_t>(queue_.executed());
  out.utilisation = std::move(samples_);
  if (options_.speeds)
    for (const auto& [name, model] : options_.speeds->models())
      out.speeds.push_back({name, model->Evaluated(options_.cluster)});
  return out;
}

}  // namespace dlsim::cluster
