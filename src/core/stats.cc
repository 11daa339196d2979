#include "dlsim/core/stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace dlsim {

double NearestRank(const std::vector<double>& sorted, double q) {
  assert(!sorted.empty());
  const size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(k, 1, sorted.size()) - 1];
}

Percentiles Summarize(std::vector<double>& v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  p.p50 = NearestRank(v, 0.5);
  p.p90 = NearestRank(v, 0.9);
  p.p99 = NearestRank(v, 0.99);
  p.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  return p;
}

}  // namespace dlsim
