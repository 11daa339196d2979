// A histogram of positive values in logarithmic buckets (each at most 0.8% wide), for percentiles of streams
// too long to keep (e.g. every inter-token gap of a serving run): the mean and the maximum are exact, a
// percentile is the upper edge of the bucket holding the nearest-rank value, so it is at most 1% above it.
//
//   LogHistogram h;
//   for (double gap : gaps) h.Add(gap);
//   Percentiles p = h.Summary();   // p50, p90, p99 within 1%; mean and max exact
#ifndef DLSIM_CORE_LOG_HISTOGRAM_H_
#define DLSIM_CORE_LOG_HISTOGRAM_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/stats.h"

namespace dlsim {

class LogHistogram {
 public:
  // Values below 1e-9 count in the lowest bucket, values above 1e9 in the highest; non-finite values and
  // values <= 0 count as 1e-9 (an inter-token gap of zero: two tokens in one instant).
  void Add(double v, int64_t times = 1);
  int64_t count() const { return count_; }
  // Nearest-rank percentiles (bucket upper edges, capped at the exact maximum), exact mean and maximum;
  // all zeros when empty.
  Percentiles Summary() const;

 private:
  double Quantile(double q) const;
  std::vector<int64_t> buckets_;
  int64_t count_ = 0;
  double sum_ = 0, max_ = 0;
};

}  // namespace dlsim

#endif  // DLSIM_CORE_LOG_HISTOGRAM_H_
