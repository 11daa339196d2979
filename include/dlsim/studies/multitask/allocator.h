// Spindle's malleable allocator: how many devices each of a set of concurrently runnable jobs (the
// remaining layers of ready MetaOps) gets, minimising the makespan of running them side by side on
// disjoint device groups under a device budget.
//
// Problem: jobs i = 1..k with times t_i(n) on n = 1..N devices (non-increasing in n: a job can leave
// devices idle); choose integers n_i >= 1 with sum n_i <= N minimising C = max_i t_i(n_i).
// Algorithm (exact): need(C) = sum_i min{n : t_i(n) <= C} falls as C grows, so the optimum is the
// smallest candidate C (one of the k N values t_i(n)) with need(C) <= N: a binary search over the
// sorted candidates, each test O(k log N). This is the discrete form of the malleable-task result the
// paper leans on (with concave speedups the optimal schedule of independent malleable tasks runs them
// all at once and ends them together: Prasanna and Musicus 1991). Devices left over after the minimum
// allocation go, one grant at a time, to the slowest job that a grant makes strictly faster (the
// smallest grant that does), so jobs that are not critical finish earlier; the makespan is unchanged.
//
//   multitask::Allocation a = *multitask::AllocateMinMakespan({t0, t1}, 8);   // a.devices, a.makespan
//
// Pure functions, thread-safe.
#ifndef DLSIM_STUDIES_MULTITASK_ALLOCATOR_H_
#define DLSIM_STUDIES_MULTITASK_ALLOCATOR_H_

#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"

namespace dlsim::multitask {

// time[n - 1]: the job's time on n devices; Duration::Max() where it cannot run. Need not be
// monotone: the allocator uses the best time on at most n devices (the prefix minimum).
struct MalleableJob {
  std::vector<Duration> time;
};

struct Allocation {
  std::vector<int> devices;    // per job, >= 1, sum <= budget
  std::vector<Duration> time;  // per job, at its devices (prefix minimum)
  Duration makespan;
};

// Errors (kInvalidArgument): no jobs, budget < 1; (kInfeasible): more jobs than devices, or a job that
// cannot run on any count up to the budget.
Result<Allocation> AllocateMinMakespan(const std::vector<MalleableJob>& jobs, int budget);

// Every allocation with n_i >= 1 and sum <= budget, for tests on tiny instances (exponential).
Result<Duration> BruteForceMakespan(const std::vector<MalleableJob>& jobs, int budget);

}  // namespace dlsim::multitask

#endif  // DLSIM_STUDIES_MULTITASK_ALLOCATOR_H_
