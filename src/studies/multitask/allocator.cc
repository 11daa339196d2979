#include "dlsim/studies/multitask/allocator.h"

#include <algorithm>
#include <functional>
#include <string>

namespace dlsim::multitask {
namespace {

// The best time on at most n devices, n = 1..budget.
std::vector<Duration> PrefixMin(const MalleableJob& j, int budget) {
  std::vector<Duration> out(static_cast<size_t>(budget), Duration::Max());
  Duration best = Duration::Max();
  for (int n = 1; n <= budget; ++n) {
    if (n <= static_cast<int>(j.time.size())) best = std::min(best, j.time[n - 1]);
    out[n - 1] = best;
  }
  return out;
}

// Fewest devices with time <= c (a non-increasing table), or budget + 1 when none.
int Need(const std::vector<Duration>& t, Duration c) {
  const auto it = std::partition_point(t.begin(), t.end(), [&](Duration x) { return x > c; });
  return static_cast<int>(it - t.begin()) + 1;
}

Status CheckJobs(const std::vector<MalleableJob>& jobs, int budget) {
  if (jobs.empty()) return Error::InvalidArgument("malleable allocation: no jobs");
  if (budget < 1) return Error::InvalidArgument("malleable allocation: budget must be >= 1");
  if (static_cast<int>(jobs.size()) > budget)
    return Error::Infeasible("malleable allocation: " + std::to_string(jobs.size()) + " jobs on " +
                             std::to_string(budget) + " devices");
  return Status::Ok();
}

// Leftover devices: one grant at a time to the slowest job that some grant within `left` makes strictly
// faster (the smallest such grant).
void GrantLeftovers(const std::vector<std::vector<Duration>>& t, int budget, int left, Allocation& a) {
  while (left > 0) {
    int pick = -1, grant = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      const int n = a.devices[i];
      int g = 0;
      for (int e = 1; e <= left && n + e <= budget && g == 0; ++e) {
        if (t[i][n + e - 1] < a.time[i]) g = e;
      }
      if (g > 0 && (pick < 0 || a.time[i] > a.time[pick])) {
        pick = static_cast<int>(i);
        grant = g;
      }
    }
    if (pick < 0) return;
    a.devices[pick] += grant;
    a.time[pick] = t[pick][a.devices[pick] - 1];
    left -= grant;
  }
}

}  // namespace

Result<Allocation> AllocateMinMakespan(const std::vector<MalleableJob>& jobs, int budget) {
  DLSIM_RETURN_IF_ERROR(CheckJobs(jobs, budget));
  const size_t k = jobs.size();
  std::vector<std::vector<Duration>> t(k);
  std::vector<Duration> candidates;
  for (size_t i = 0; i < k; ++i) {
    t[i] = PrefixMin(jobs[i], budget);
    if (t[i].back() == Duration::Max())
      return Error::Infeasible("malleable allocation: job " + std::to_string(i) + " cannot run on " +
                               std::to_string(budget) + " devices or fewer");
    for (Duration d : t[i])
      if (d != Duration::Max()) candidates.push_back(d);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  auto need = [&](Duration c) {
    int64_t sum = 0;
    for (size_t i = 0; i < k; ++i) sum += Need(t[i], c);
    return sum;
  };
  // need() falls as the candidate grows; even the largest may need too many devices when some jobs
  // cannot run on few.
  const auto first_ok = std::partition_point(candidates.begin(), candidates.end(),
                                             [&](Duration c) { return need(c) > budget; });
  if (first_ok == candidates.end())
    return Error::Infeasible("malleable allocation: the jobs need more than " + std::to_string(budget) +
                             " devices together");
  const Duration c = *first_ok;
  Allocation a;
  a.devices.resize(k);
  a.time.resize(k);
  int left = budget;
  for (size_t i = 0; i < k; ++i) {
    a.devices[i] = Need(t[i], c);
    a.time[i] = t[i][a.devices[i] - 1];
    left -= a.devices[i];
  }
  GrantLeftovers(t, budget, left, a);
  a.makespan = *std::max_element(a.time.begin(), a.time.end());
  return a;
}

Result<Duration> BruteForceMakespan(const std::vector<MalleableJob>& jobs, int budget) {
  DLSIM_RETURN_IF_ERROR(CheckJobs(jobs, budget));
  std::vector<std::vector<Duration>> t;
  for (const MalleableJob& j : jobs) t.push_back(PrefixMin(j, budget));
  Duration best = Duration::Max();
  std::vector<int> n(jobs.size(), 1);
  std::function<void(size_t, int, Duration)> go = [&](size_t i, int left, Duration worst) {
    if (i == jobs.size()) {
      best = std::min(best, worst);
      return;
    }
    const int rest = static_cast<int>(jobs.size() - i - 1);  // one device each for the rest
    for (int d = 1; d <= left - rest; ++d) go(i + 1, left - d, std::max(worst, t[i][d - 1]));
  };
  go(0, budget, Duration::Zero());
  if (best == Duration::Max()) return Error::Infeasible("malleable allocation: no allocation runs every job");
  return best;
}

}  // namespace dlsim::multitask
