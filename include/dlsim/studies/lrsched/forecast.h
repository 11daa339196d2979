// AutoLRS's loss forecaster: fits y = a x exp(-k x) + c (k > 0) to a short loss series and
// extrapolates it (Jin et al., ICLR'21 Section 4.2: a trial of tau' steps predicts the loss after
// tau steps). For a fixed k the model is linear in (a, c), solved by least squares; k = exp(b) is
// found by golden-section search on b in [-12, 4] (x in steps), the released code's
// parametrisation (optimize.fmin over b of exp(-exp(b) x)). No spline smoothing: the series we
// fit are validation losses on a fixed probe set, not noisy training losses.
// Pure functions; thread-safe.
#ifndef DLSIM_STUDIES_LRSCHED_FORECAST_H_
#define DLSIM_STUDIES_LRSCHED_FORECAST_H_

#include <vector>

namespace dlsim::lrsched {

struct ExpFit {
  double a = 0, k = 0, c = 0;
  double residual = 0;  // sum of squared residuals
  double At(double x) const;
};

// Least-squares fit over (x, y); at least 3 points with distinct x. Fewer points: a = 0, c = the
// mean (a flat forecast).
ExpFit FitExponential(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace dlsim::lrsched

#endif  // DLSIM_STUDIES_LRSCHED_FORECAST_H_
