// One-dimensional Bayesian optimisation with a Gaussian process (AutoLRS's search over the
// learning rate of a stage; Jin et al., ICLR'21). The GP has a Matern-5/2 kernel on x scaled to
// [0, 1], standardised outputs, and its length scale chosen by the largest log marginal
// likelihood over a fixed grid; the next point minimises the lower confidence bound
// mu - kappa x sigma over a grid of candidates (kappa large: explore where the GP knows least;
// small: exploit its best guess). The first point is drawn uniformly (seeded).
//
//   BayesOpt1D bo({.lo = -4, .hi = 0, .kappa = 2, .seed = 1});
//   for (int i = 0; i < 10; ++i) { double x = bo.Ask(); bo.Tell(x, f(x)); }
//   bo.Best();   // {x, f(x)} of the least value told
// Deterministic for a seed. Not thread-safe.
#ifndef DLSIM_STUDIES_LRSCHED_BAYES_OPT_H_
#define DLSIM_STUDIES_LRSCHED_BAYES_OPT_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace dlsim::lrsched {

// A GP posterior over [0, 1] from observations (x in [0, 1], y any finite value).
class GaussianProcess1D {
 public:
  // Fits to the points (at least one); the length scale maximises the marginal likelihood.
  void Fit(const std::vector<double>& x, const std::vector<double>& y, double noise = 1e-6);
  // Posterior mean and standard deviation at x, in y's units.
  std::pair<double, double> Predict(double x) const;
  double length_scale() const { return length_; }

 private:
  double LogLikelihood(double length) const;
  std::vector<double> x_, z_;  // inputs and standardised outputs
  double mean_ = 0, scale_ = 1, noise_ = 1e-6, length_ = 0.2;
  std::vector<double> chol_, alpha_;  // Cholesky factor (row-major, lower) and K^-1 z
};

struct BayesOptOptions {
  double lo = 0, hi = 1;  // the search interval (AutoLRS: log10 of the learning rate)
  double kappa = 2;       // LCB exploration weight (AutoLRS's released code: 1e6)
  int candidates = 512;   // grid of the acquisition
  uint64_t seed = 1;      // the first point
};

class BayesOpt1D {
 public:
  explicit BayesOpt1D(BayesOptOptions o);
  double Ask();
  void Tell(double x, double y);  // a non-finite y is told as 1e6 (AutoLRS's rule for a NaN loss)
  std::pair<double, double> Best() const;
  int evaluations() const { return static_cast<int>(y_.size()); }

 private:
  BayesOptOptions o_;
  std::vector<double> u_, y_;  // observed points in [0, 1] and values
};

}  // namespace dlsim::lrsched

#endif  // DLSIM_STUDIES_LRSCHED_BAYES_OPT_H_
