// A job's state during a cluster simulation, as the engine keeps it and the policies read it.
#ifndef DLSIM_CLUSTER_PROGRESS_H_
#define DLSIM_CLUSTER_PROGRESS_H_

#include <cstdint>

#include "dlsim/cluster/cluster_state.h"
#include "dlsim/cluster/job.h"
#include "dlsim/core/units.h"

namespace dlsim::cluster {

enum class JobStatus { kFuture, kWaiting, kRunning, kDone, kNeverFits };

struct JobProgress {
  JobStatus status = JobStatus::kFuture;
  double remaining = 0;       // work left (seconds or steps) at `since`
  double rate = 0;            // work per second while running (0 when waiting)
  double reference_rate = 1;  // work per second on the job's best (consolidated) shape
  double attained_gpu_s = 0;  // GPU-seconds held before `since` (Tiresias / LAS service)
  double executed_s = 0;      // wall seconds held before `since`
  TimePoint since;            // last start or preemption
  TimePoint progress_from;    // when work resumes after a restart overhead (>= since)
  TimePoint first_start;
  TimePoint finish;
  bool started = false;
  int preemptions = 0;
  int nodes_spanned = 0;   // of the current (or last) allocation
  int64_t held_milli = 0;  // milli-GPUs of the current (or last) allocation
  int resizes = 0;         // allocation changes of a running job (allocation policies)
  Allocation allocation;
};

// GPU-seconds of service at `now` (the running interval included).
inline double AttainedAt(const JobSpec& job, const JobProgress& p, TimePoint now) {
  if (p.status != JobStatus::kRunning) return p.attained_gpu_s;
  const double held = (now - p.since).ToSeconds();
  return p.attained_gpu_s + held * static_cast<double>(p.held_milli) / 1000.0;
}

// Work left at `now` (the running interval's progress subtracted).
inline double RemainingAt(const JobProgress& p, TimePoint now) {
  if (p.status != JobStatus::kRunning || now <= p.progress_from) return p.remaining;
  const double done = (now - p.progress_from).ToSeconds() * p.rate;
  return done >= p.remaining ? 0 : p.remaining - done;
}

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_PROGRESS_H_
