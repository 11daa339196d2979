#include "dlsim/core/rng.h"

#include <cassert>
#include <cmath>
#include <numbers>

namespace dlsim {
namespace {

uint64_t SplitMix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

Rng::Rng(uint64_t seed) : seed_(seed) {
  uint64_t x = seed;
  for (auto& s : s_) s = SplitMix64(x);
}

Rng Rng::Stream(std::string_view name) const {
  uint64_t x = seed_ ^ Fnv1a(name);
  return Rng(SplitMix64(x));
}

double Rng::NextDouble() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

double SampleUniform(Rng& rng, double lo, double hi) { return lo + (hi - lo) * rng.NextDouble(); }

double SampleNormal(Rng& rng, double mean, double stddev) {
  // Marsaglia polar method; one value per call keeps the stream position simple.
  double u, v, s;
  do {
    u = 2.0 * rng.NextDouble() - 1.0;
    v = 2.0 * rng.NextDouble() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  return mean + stddev * u * std::sqrt(-2.0 * std::log(s) / s);
}

double SampleLognormal(Rng& rng, double mu, double sigma) { return std::exp(SampleNormal(rng, mu, sigma)); }

double SampleExponential(Rng& rng, double rate) { return -std::log1p(-rng.NextDouble()) / rate; }

double SampleGamma(Rng& rng, double shape, double scale) {
  assert(shape > 0 && scale > 0);
  if (shape < 1.0) {
    // Boost: Gamma(k) = Gamma(k + 1) * U^(1/k).
    double u = rng.NextDouble();
    while (u == 0.0) u = rng.NextDouble();
    return SampleGamma(rng, shape + 1.0, scale) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x, v;
    do {
      x = SampleNormal(rng, 0.0, 1.0);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    double u = rng.NextDouble();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * scale;
    if (u > 0.0 && std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * scale;
  }
}

double SamplePareto(Rng& rng, double x_min, double alpha) {
  double u = 1.0 - rng.NextDouble();  // (0, 1]
  return x_min * std::pow(u, -1.0 / alpha);
}

CategoricalSampler::CategoricalSampler(const std::vector<double>& weights) {
  const size_t n = weights.size();
  assert(n > 0);
  double sum = 0;
  for (double w : weights) sum += w;
  assert(sum > 0);
  prob_.assign(n, 0.0);
  alias_.assign(n, 0);
  std::vector<double> scaled(n);
  std::vector<uint32_t> small, large;
  for (size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / sum;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    uint32_t s = small.back(), l = large.back();
    small.pop_back();
    prob_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (uint32_t i : large) prob_[i] = 1.0;
  for (uint32_t i : small) prob_[i] = 1.0;
}

size_t CategoricalSampler::Sample(Rng& rng) const {
  size_t i = rng.NextBelow(prob_.size());
  return rng.NextDouble() < prob_[i] ? i : alias_[i];
}

EmpiricalSampler::EmpiricalSampler(std::vector<double> values, const std::vector<double>& weights)
    : values_(std::move(values)), cat_(weights) {
  assert(values_.size() == weights.size());
}

}  // namespace dlsim
