// Deterministic random numbers: xoshiro256** seeded through SplitMix64, with named
// sub-streams, and our own distributions (standard-library distributions differ across
// implementations, which would break byte-identical output).
//
//   dlsim::Rng root(42);
//   dlsim::Rng lengths = root.Stream("data/lengths");   // independent of other streams
//   double x = dlsim::SampleLognormal(lengths, 7.3, 1.6);
//
// An Rng is a value; copy it to fork. Not thread-safe; give each thread its own stream.
#ifndef DLSIM_CORE_RNG_H_
#define DLSIM_CORE_RNG_H_

#include <bit>
#include <cassert>
#include <cstdint>
#include <string_view>
#include <vector>

namespace dlsim {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0);
  // A sub-stream whose sequence depends only on this stream's seed and `name`.
  Rng Stream(std::string_view name) const;
  uint64_t NextU64();
  // Uniform in [0, 1) with 53 random bits.
  double NextDouble();
  // Uniform integer in [0, n). Precondition: n > 0. Unbiased (rejection).
  uint64_t NextBelow(uint64_t n);
  uint64_t seed() const { return seed_; }

 private:
  uint64_t seed_;
  uint64_t s_[4];
};

// Inline: the samplers draw one per sampled edge (issue 12's benchmark spent 16% of its time in the
// call).
inline uint64_t Rng::NextU64() {
  const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

inline uint64_t Rng::NextBelow(uint64_t n) {
  assert(n > 0);
  // Rejection keeps the draw unbiased: values at or above limit = UINT64_MAX - UINT64_MAX % n are
  // redrawn. Since UINT64_MAX % n < n, limit > UINT64_MAX - n, so a draw at most UINT64_MAX - n is
  // always accepted; only the rare draw above that needs limit (a second division).
  uint64_t r = NextU64();
  if (r <= UINT64_MAX - n) return r % n;
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  while (r >= limit) r = NextU64();
  return r % n;
}

double SampleUniform(Rng& rng, double lo, double hi);
double SampleNormal(Rng& rng, double mean, double stddev);
// exp(N(mu, sigma)); the median is exp(mu).
double SampleLognormal(Rng& rng, double mu, double sigma);
double SampleExponential(Rng& rng, double rate);
// Gamma with shape k > 0 and scale theta > 0 (mean k * theta). Marsaglia-Tsang.
double SampleGamma(Rng& rng, double shape, double scale);
// Pareto type I: x_m * U^(-1/alpha), support [x_m, inf).
double SamplePareto(Rng& rng, double x_min, double alpha);

// Draws an index with probability proportional to weights[i]. Walker's alias method:
// O(n) construction, O(1) per draw. Preconditions: weights non-empty, all >= 0, sum > 0.
class CategoricalSampler {
 public:
  explicit CategoricalSampler(const std::vector<double>& weights);
  size_t Sample(Rng& rng) const;
  size_t size() const { return prob_.size(); }

 private:
  std::vector<double> prob_;
  std::vector<uint32_t> alias_;
};

// Empirical distribution over values with weights (e.g. a histogram of sequence lengths).
class EmpiricalSampler {
 public:
  EmpiricalSampler(std::vector<double> values, const std::vector<double>& weights);
  double Sample(Rng& rng) const { return values_[cat_.Sample(rng)]; }

 private:
  std::vector<double> values_;
  CategoricalSampler cat_;
};

}  // namespace dlsim

#endif  // DLSIM_CORE_RNG_H_
