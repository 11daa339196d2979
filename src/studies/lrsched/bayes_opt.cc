#include "dlsim/studies/lrsched/bayes_opt.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dlsim/core/rng.h"

namespace dlsim::lrsched {
namespace {

constexpr double kLengthGrid[] = {0.03, 0.06, 0.1, 0.15, 0.25, 0.4, 0.7, 1.0};

double Matern52(double a, double b, double length) {
  const double r = std::sqrt(5.0) * std::abs(a - b) / length;
  return (1 + r + r * r / 3) * std::exp(-r);
}

// Lower Cholesky factor of the n x n matrix k (row-major); false when not positive definite.
bool Cholesky(std::vector<double> k, size_t n, std::vector<double>& l) {
  l.assign(n * n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) {
      double s = k[i * n + j];
      for (size_t p = 0; p < j; ++p) s -= l[i * n + p] * l[j * n + p];
      if (i == j) {
        if (!(s > 0)) return false;
        l[i * n + i] = std::sqrt(s);
      } else {
        l[i * n + j] = s / l[j * n + j];
      }
    }
  return true;
}

// Solves L v = b (forward) or L^T v = b (backward) in place.
void Forward(const std::vector<double>& l, size_t n, std::vector<double>& v) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t p = 0; p < i; ++p) v[i] -= l[i * n + p] * v[p];
    v[i] /= l[i * n + i];
  }
}
void Backward(const std::vector<double>& l, size_t n, std::vector<double>& v) {
  for (size_t i = n; i-- > 0;) {
    for (size_t p = i + 1; p < n; ++p) v[i] -= l[p * n + i] * v[p];
    v[i] /= l[i * n + i];
  }
}

std::vector<double> Gram(const std::vector<double>& x, double length, double noise) {
  const size_t n = x.size();
  std::vector<double> k(n * n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) k[i * n + j] = Matern52(x[i], x[j], length) + (i == j ? noise : 0.0);
  return k;
}

}  // namespace

double GaussianProcess1D::LogLikelihood(double length) const {
  const size_t n = x_.size();
  std::vector<double> l;
  if (!Cholesky(Gram(x_, length, noise_), n, l)) return -std::numeric_limits<double>::infinity();
  std::vector<double> v = z_;
  Forward(l, n, v);
  double fit = 0, det = 0;
  for (size_t i = 0; i < n; ++i) fit += v[i] * v[i], det += std::log(l[i * n + i]);
  return -0.5 * fit - det;
}

void GaussianProcess1D::Fit(const std::vector<double>& x, const std::vector<double>& y, double noise) {
  x_ = x;
  noise_ = noise;
  const size_t n = x.size();
  mean_ = 0;
  for (double v : y) mean_ += v / static_cast<double>(n);
  double var = 0;
  for (double v : y) var += (v - mean_) * (v - mean_) / static_cast<double>(n);
  scale_ = var > 0 ? std::sqrt(var) : 1.0;
  z_.clear();
  for (double v : y) z_.push_back((v - mean_) / scale_);
  double best = -std::numeric_limits<double>::infinity();
  for (double length : kLengthGrid)
    if (const double ll = LogLikelihood(length); ll > best) best = ll, length_ = length;
  while (!Cholesky(Gram(x_, length_, noise_), n, chol_)) noise_ *= 10;  // duplicate points
  alpha_ = z_;
  Forward(chol_, n, alpha_);
  Backward(chol_, n, alpha_);
}

std::pair<double, double> GaussianProcess1D::Predict(double x) const {
  const size_t n = x_.size();
  std::vector<double> k(n);
  double mu = 0;
  for (size_t i = 0; i < n; ++i) k[i] = Matern52(x, x_[i], length_), mu += k[i] * alpha_[i];
  Forward(chol_, n, k);
  double var = 1.0;
  for (double v : k) var -= v * v;
  return {mean_ + scale_ * mu, scale_ * std::sqrt(std::max(var, 0.0))};
}

BayesOpt1D::BayesOpt1D(BayesOptOptions o) : o_(o) {}

double BayesOpt1D::Ask() {
  if (u_.empty()) {
    Rng rng = Rng(o_.seed).Stream("lrsched/bayes-opt");
    return o_.lo + (o_.hi - o_.lo) * rng.NextDouble();
  }
  GaussianProcess1D gp;
  gp.Fit(u_, y_);
  double best_u = 0.5, best = std::numeric_limits<double>::infinity();
  for (int c = 0; c < o_.candidates; ++c) {
    const double u = (c + 0.5) / o_.candidates;
    if (std::find(u_.begin(), u_.end(), u) != u_.end()) continue;
    const auto [mu, sigma] = gp.Predict(u);
    if (const double lcb = mu - o_.kappa * sigma; lcb < best) best = lcb, best_u = u;
  }
  return o_.lo + (o_.hi - o_.lo) * best_u;
}

void BayesOpt1D::Tell(double x, double y) {
  u_.push_back(std::clamp((x - o_.lo) / (o_.hi - o_.lo), 0.0, 1.0));
  y_.push_back(std::isfinite(y) ? std::min(y, 1e6) : 1e6);
}

std::pair<double, double> BayesOpt1D::Best() const {
  size_t b = 0;
  for (size_t i = 1; i < y_.size(); ++i)
    if (y_[i] < y_[b]) b = i;
  if (y_.empty()) return {o_.lo, std::numeric_limits<double>::infinity()};
  return {o_.lo + (o_.hi - o_.lo) * u_[b], y_[b]};
}

}  // namespace dlsim::lrsched
