#include "dlsim/data/length_source.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "dlsim/core/strings.h"

namespace dlsim::data {
namespace {

// Rounds a drawn length to an integer in [1, max_len] (max_len 0: kMaxDocumentTokens), so a heavy
// tail can never overflow a token count.
int64_t ToLength(double x, int64_t max_len) {
  const int64_t cap = max_len > 0 ? std::min(max_len, kMaxDocumentTokens) : kMaxDocumentTokens;
  if (!(x >= 1.0)) return 1;  // also catches NaN
  if (x >= static_cast<double>(cap)) return cap;
  return std::max<int64_t>(1, std::llround(x));
}

double LognormalMean(double median, double sigma) { return median * std::exp(sigma * sigma / 2); }

class FixedSource : public LengthSource {
 public:
  FixedSource(double v, int64_t max_len) : v_(v), max_len_(max_len) {}
  int64_t Draw(Rng&) const override { return ToLength(v_, max_len_); }
  double Mean() const override { return v_; }

 private:
  double v_;
  int64_t max_len_;
};

// Integer lengths uniform in [low, high], both inclusive (torch.randint(low,
// high + 1)).
class UniformSource : public LengthSource {
 public:
  UniformSource(int64_t lo, int64_t hi, int64_t max_len) : lo_(lo), hi_(hi), max_len_(max_len) {}
  int64_t Draw(Rng& rng) const override {
    auto n = static_cast<uint64_t>(hi_ - lo_ + 1);
    return ToLength(static_cast<double>(lo_ + static_cast<int64_t>(rng.NextBelow(n))), max_len_);
  }
  double Mean() const override { return 0.5 * static_cast<double>(lo_ + hi_); }

 private:
  int64_t lo_, hi_, max_len_;
};

class LognormalSource : public LengthSource {
 public:
  LognormalSource(double median, double sigma, int64_t max_len)
      : mu_(std::log(median)), median_(median), sigma_(sigma), max_len_(max_len) {}
  int64_t Draw(Rng& rng) const override { return ToLength(SampleLognormal(rng, mu_, sigma_), max_len_); }
  double Mean() const override { return LognormalMean(median_, sigma_); }

 private:
  double mu_, median_, sigma_;
  int64_t max_len_;
};

// Lognormal body with probability 1 - f, Pareto(x_min, alpha) tail with
// probability f.
class ParetoMixSource : public LengthSource {
 public:
  explicit ParetoMixSource(const LengthSpec& s) : mu_(std::log(s.median)), spec_(s) {}
  int64_t Draw(Rng& rng) const override {
    double u = rng.NextDouble();
    double x = u < spec_.tail_fraction ? SamplePareto(rng, spec_.tail_min, spec_.tail_alpha)
                                       : SampleLognormal(rng, mu_, spec_.sigma);
    return ToLength(x, spec_.max_len);
  }
  double Mean() const override {
    double tail = spec_.tail_alpha > 1 ? spec_.tail_alpha * spec_.tail_min / (spec_.tail_alpha - 1)
                                       : std::numeric_limits<double>::infinity();
    if (spec_.tail_fraction == 0) tail = 0;
    return (1 - spec_.tail_fraction) * LognormalMean(spec_.median, spec_.sigma) + spec_.tail_fraction * tail;
  }

 private:
  double mu_;
  LengthSpec spec_;
};

class EmpiricalSource : public LengthSource {
 public:
  EmpiricalSource(const LengthSpec& s) : sampler_(s.values, s.weights), max_len_(s.max_len) {
    double w = std::accumulate(s.weights.begin(), s.weights.end(), 0.0);
    double vw = 0;
    for (size_t i = 0; i < s.values.size(); ++i) vw += s.values[i] * s.weights[i];
    mean_ = vw / w;
  }
  int64_t Draw(Rng& rng) const override { return ToLength(sampler_.Sample(rng), max_len_); }
  double Mean() const override { return mean_; }

 private:
  EmpiricalSampler sampler_;
  int64_t max_len_;
  double mean_ = 0;
};

Error Bad(const std::string& what) { return Error::InvalidArgument("data.lengths: " + what); }

Status CheckEmpirical(const LengthSpec& s) {
  if (s.values.empty()) return Bad("empirical distribution has no lengths");
  if (s.values.size() != s.weights.size()) return Bad("empirical values and weights differ in size");
  double total = 0;
  for (size_t i = 0; i < s.values.size(); ++i) {
    if (!(s.values[i] >= 1)) return Bad("empirical length " + FormatNumber(s.values[i]) + " is below 1");
    if (!(s.weights[i] >= 0)) return Bad("empirical weight " + FormatNumber(s.weights[i]) + " is negative");
    total += s.weights[i];
  }
  if (!(total > 0)) return Bad("empirical weights sum to zero");
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& LengthDistributionNames() {
  static const std::vector<std::string> kNames = {"empirical", "fixed", "lognormal", "pareto_mix", "uniform"};
  return kNames;
}

Result<std::unique_ptr<LengthSource>> MakeLengthSource(const LengthSpec& s) {
  if (s.max_len < 0) return Bad("max_len must be >= 0, found " + std::to_string(s.max_len));
  const std::string& d = s.distribution;
  if (d == "fixed") {
    if (!(s.value >= 1)) return Bad("fixed value must be >= 1, found " + FormatNumber(s.value));
    return std::unique_ptr<LengthSource>(std::make_unique<FixedSource>(s.value, s.max_len));
  }
  if (d == "uniform") {
    if (!(s.low >= 1)) return Bad("uniform low must be >= 1, found " + FormatNumber(s.low));
    if (!(s.high >= s.low)) return Bad("uniform high must be >= low");
    return std::unique_ptr<LengthSource>(
        std::make_unique<UniformSource>(std::llround(s.low), std::llround(s.high), s.max_len));
  }
  if (d == "lognormal" || d == "pareto_mix") {
    if (!(s.median > 0)) return Bad(d + " median must be > 0, found " + FormatNumber(s.median));
    if (!(s.sigma >= 0)) return Bad(d + " sigma must be >= 0, found " + FormatNumber(s.sigma));
    if (d == "lognormal") {
      return std::unique_ptr<LengthSource>(std::make_unique<LognormalSource>(s.median, s.sigma, s.max_len));
    }
    if (!(s.tail_fraction >= 0 && s.tail_fraction <= 1))
      return Bad("pareto_mix tail_fraction must be in [0, 1]");
    if (!(s.tail_min >= 1)) return Bad("pareto_mix tail_min must be >= 1");
    if (!(s.tail_alpha > 0)) return Bad("pareto_mix tail_alpha must be > 0");
    return std::unique_ptr<LengthSource>(std::make_unique<ParetoMixSource>(s));
  }
  if (d == "empirical") {
    DLSIM_RETURN_IF_ERROR(CheckEmpirical(s));
    return std::unique_ptr<LengthSource>(std::make_unique<EmpiricalSource>(s));
  }
  return Error::InvalidArgument(UnknownNameMessage("length distribution", d, LengthDistributionNames()));
}

std::vector<int64_t> DrawDocuments(const LengthSource& src, Rng& rng, int64_t token_budget, int64_t max_len) {
  std::vector<int64_t> docs;
  int64_t total = 0;
  while (total < token_budget) {
    int64_t l = src.Draw(rng);
    if (max_len > 0) l = std::min(l, max_len);
    docs.push_back(l);
    total += l;
  }
  return docs;
}

std::vector<int64_t> DrawDocumentCount(const LengthSource& src, Rng& rng, int count, int64_t max_len) {
  std::vector<int64_t> docs;
  docs.reserve(static_cast<size_t>(std::max(0, count)));
  for (int i = 0; i < count; ++i) {
    int64_t l = src.Draw(rng);
    docs.push_back(max_len > 0 ? std::min(l, max_len) : l);
  }
  return docs;
}

}  // namespace dlsim::data
