// Summary statistics shared by every simulator: one percentile definition for the whole tool.
//
//   std::vector<double> ttft = ...;
//   Percentiles p = Summarize(ttft);   // p.p50, p.p90, p.p99, p.mean, p.max
//
// Percentiles are nearest-rank: the q-th is the smallest value with at least q * n values at
// or below it (v[ceil(q n) - 1] of the sorted values), so every reported percentile is an
// observed value. Stateless; thread-safe.
#ifndef DLSIM_CORE_STATS_H_
#define DLSIM_CORE_STATS_H_

#include <vector>

namespace dlsim {

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0, max = 0;
};

// Nearest-rank percentiles, the mean and the maximum of `values`, which is sorted in place.
// All zeros when `values` is empty.
Percentiles Summarize(std::vector<double>& values);

// The nearest-rank q-quantile (0 < q <= 1) of `sorted` (ascending, not empty).
double NearestRank(const std::vector<double>& sorted, double q);

}  // namespace dlsim

#endif  // DLSIM_CORE_STATS_H_
