#include "dlsim/core/log_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace dlsim {
namespace {

constexpr double kLowest = 1e-9, kHighest = 1e9;
// Buckets from the double's bits (no logarithm per value): the binary exponent and the top kSubBits bits
// of the mantissa, so each octave has 2^kSubBits equal buckets, each at most 1/128 (0.78%) of its lower edge
// wide.
constexpr int kSubBits = 7;
constexpr int kLowestExponent = -31;  // 2^-31 < 1e-9

// The IEEE-754 biased exponent of kLowest's octave (2^-31); the top kSubBits mantissa bits pick the bucket.
constexpr int kLowestBiased = 1023 + kLowestExponent;
constexpr size_t kBuckets = size_t{62} << kSubBits;  // 2^-31 .. 2^31 > kHighest

size_t BucketOf(double v) {
  const double c = std::clamp(v, kLowest, kHighest);
  uint64_t bits = 0;
  std::memcpy(&bits, &c, sizeof bits);
  const auto biased = static_cast<int>(bits >> 52);
  return (static_cast<size_t>(biased - kLowestBiased) << kSubBits) |
         ((bits >> (52 - kSubBits)) & ((1 << kSubBits) - 1));
}

// Bucket b covers [2^e (1 + k / 2^kSubBits), 2^e (1 + (k + 1) / 2^kSubBits)) for e = b / 2^kSubBits +
// kLowestExponent.
double UpperEdge(size_t b) {
  const int exponent = static_cast<int>(b >> kSubBits) + kLowestExponent;
  const double k = static_cast<double>((b & ((1 << kSubBits) - 1)) + 1);
  return std::ldexp(1 + k / (1 << kSubBits), exponent);
}

}  // namespace

void LogHistogram::Add(double v, int64_t times) {
  if (times <= 0) return;
  if (!(v > 0) || !std::isfinite(v)) v = kLowest;
  if (buckets_.empty()) buckets_.assign(kBuckets, 0);
  buckets_[BucketOf(v)] += times;
  count_ += times;
  sum_ += v * static_cast<double>(times);
  max_ = std::max(max_, v);
}

double LogHistogram::Quantile(double q) const {
  const auto rank = static_cast<int64_t>(std::ceil(q * static_cast<double>(count_)));
  int64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= std::max<int64_t>(rank, 1)) return std::min(UpperEdge(b), max_);
  }
  return max_;
}

Percentiles LogHistogram::Summary() const {
  Percentiles p;
  if (count_ == 0) return p;
  p.p50 = Quantile(0.5);
  p.p90 = Quantile(0.9);
  p.p99 = Quantile(0.99);
  p.mean = sum_ / static_cast<double>(count_);
  p.max = max_;
  return p;
}

}  // namespace dlsim
