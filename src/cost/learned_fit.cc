#include "dlsim/cost/learned_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dlsim/cost/tile_search.h"

namespace dlsim::cost {
namespace {

constexpr size_t kF = kGemmFeatureCount;
constexpr int kLloydSteps = 25;

// SplitMix64: our own generator, so the selection is the same on every standard library.
struct SplitMix {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
};

std::vector<double> ZScored(const LearnSet& set) {
  const size_t n = set.rows();
  std::vector<double> z = set.x;
  for (size_t f = 0; f < kF; ++f) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; ++i) mean += set.x[i * kF + f] / static_cast<double>(n);
    for (size_t i = 0; i < n; ++i) var += std::pow(set.x[i * kF + f] - mean, 2) / static_cast<double>(n);
    const double sd = var > 0 ? std::sqrt(var) : 1;
    for (size_t i = 0; i < n; ++i) z[i * kF + f] = (set.x[i * kF + f] - mean) / sd;
  }
  return z;
}

double Dist2(const double* a, const double* b) {
  double d = 0;
  for (size_t f = 0; f < kF; ++f) d += (a[f] - b[f]) * (a[f] - b[f]);
  return d;
}

// k-means++ seeding: each next centre drawn with probability proportional to squared distance.
std::vector<double> Seed(const std::vector<double>& z, size_t n, size_t k, SplitMix& rng) {
  std::vector<double> c(z.begin(), z.begin() + kF);
  std::vector<double> d(n, std::numeric_limits<double>::max());
  while (c.size() < k * kF) {
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      d[i] = std::min(d[i], Dist2(&z[i * kF], &c[c.size() - kF]));
      total += d[i];
    }
    double r = rng.Uniform() * total;
    size_t pick = n - 1;
    for (size_t i = 0; i < n; ++i) {
      if ((r -= d[i]) <= 0) {
        pick = i;
        break;
      }
    }
    c.insert(c.end(), z.begin() + static_cast<long>(pick * kF),
             z.begin() + static_cast<long>((pick + 1) * kF));
  }
  return c;
}

void Lloyd(const std::vector<double>& z, size_t n, size_t k, std::vector<double>& c) {
  std::vector<size_t> owner(n);
  for (int step = 0; step < kLloydSteps; ++step) {
    for (size_t i = 0; i < n; ++i) {
      size_t best = 0;
      double best_d = Dist2(&z[i * kF], &c[0]);
      for (size_t j = 1; j < k; ++j) {
        const double dj = Dist2(&z[i * kF], &c[j * kF]);
        if (dj < best_d) best = j, best_d = dj;
      }
      owner[i] = best;
    }
    std::vector<double> sum(k * kF, 0.0);
    std::vector<double> count(k, 0.0);
    for (size_t i = 0; i < n; ++i) {
      count[owner[i]] += 1;
      for (size_t f = 0; f < kF; ++f) sum[owner[i] * kF + f] += z[i * kF + f];
    }
    for (size_t j = 0; j < k; ++j)
      if (count[j] > 0)
        for (size_t f = 0; f < kF; ++f) c[j * kF + f] = sum[j * kF + f] / count[j];
  }
}

}  // namespace

std::vector<double> LearnSet::Row(size_t i) const {
  return std::vector<double>(x.begin() + static_cast<long>(i * kF),
                             x.begin() + static_cast<long>((i + 1) * kF));
}

LearnSet MakeLearnSet(const std::vector<LearnSample>& samples) {
  LearnSet set;
  for (const LearnSample& s : samples) {
    double tile_s = 0;
    const std::vector<double> f = GemmFeatures(s.shape, s.dtype, *s.device, *s.feasible, &tile_s);
    set.x.insert(set.x.end(), f.begin(), f.end());
    set.tile_s.push_back(tile_s);
    set.measured_s.push_back(s.measured_s);
    set.label.push_back(std::log(s.measured_s / tile_s));
  }
  return set;
}

LearnSet MakeProfileSet(const std::vector<GemmProfileRow>& rows,
                        const std::map<std::string, hw::GpuSpec>& gpu_of) {
  std::map<std::string, std::pair<TileDevice, std::vector<TileConfig>>> devices;
  for (const auto& [name, gpu] : gpu_of) {
    const TileDevice d = TileDevice::Of(gpu, hw::DType::kFp16);
    devices[name] = {d, FeasibleTiles(hw::DType::kFp16, d)};
  }
  std::vector<LearnSample> samples;
  for (const GemmProfileRow& r : rows) {
    const auto& [dev, feasible] = devices.at(r.gpu);
    samples.push_back({r.shape, hw::DType::kFp16, &dev, &feasible, r.measured_s});
  }
  return MakeLearnSet(samples);
}

LearnSet Subset(const LearnSet& set, const std::vector<size_t>& rows) {
  LearnSet out;
  for (size_t i : rows) {
    const std::vector<double> r = set.Row(i);
    out.x.insert(out.x.end(), r.begin(), r.end());
    out.label.push_back(set.label[i]);
    out.tile_s.push_back(set.tile_s[i]);
    out.measured_s.push_back(set.measured_s[i]);
  }
  return out;
}

std::vector<size_t> KMeansSelect(const LearnSet& set, size_t k, uint64_t seed) {
  const size_t n = set.rows();
  std::vector<size_t> out;
  if (k >= n) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  if (k == 0) return out;
  const std::vector<double> z = ZScored(set);
  SplitMix rng{seed};
  std::vector<double> c = Seed(z, n, k, rng);
  Lloyd(z, n, k, c);
  std::vector<bool> taken(n, false);
  for (size_t j = 0; j < k; ++j) {
    size_t best = n;
    double best_d = 0;
    for (size_t i = 0; i < n; ++i) {
      if (taken[i]) continue;
      const double di = Dist2(&z[i * kF], &c[j * kF]);
      if (best == n || di < best_d) best = i, best_d = di;
    }
    taken[best] = true;
    out.push_back(best);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<size_t> RandomSelect(size_t n, size_t k, uint64_t seed) {
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  SplitMix rng{seed};
  for (size_t i = n; i > 1; --i) std::swap(all[i - 1], all[rng.Next() % i]);
  all.resize(std::min(k, n));
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<double> RegressionSet::Row(size_t i) const {
  const size_t n = names.size();
  return std::vector<double>(x.begin() + static_cast<std::ptrdiff_t>(i * n),
                             x.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
}

double LearnedMape(const TreeEnsemble& model, const LearnSet& set) {
  double sum = 0;
  for (size_t i = 0; i < set.rows(); ++i) {
    const double p = set.tile_s[i] * std::exp(model.Predict(set.Row(i)));
    sum += 100.0 * std::abs(p - set.measured_s[i]) / set.measured_s[i];
  }
  return set.rows() ? sum / static_cast<double>(set.rows()) : 0;
}

}  // namespace dlsim::cost
