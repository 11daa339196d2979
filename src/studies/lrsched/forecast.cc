#include "dlsim/studies/lrsched/forecast.h"

#include <algorithm>
#include <cmath>

namespace dlsim::lrsched {
namespace {

// Least squares of y ~ a e + c for e = exp(-k x); returns the fit with its residual.
ExpFit Linear(const std::vector<double>& x, const std::vector<double>& y, double k) {
  const double n = static_cast<double>(x.size());
  double se = 0, see = 0, sy = 0, sey = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = std::exp(-k * x[i]);
    se += e, see += e * e, sy += y[i], sey += e * y[i];
  }
  ExpFit f;
  f.k = k;
  const double det = n * see - se * se;
  if (std::abs(det) < 1e-300) {
    f.c = sy / n;
  } else {
    f.a = (n * sey - se * sy) / det;
    f.c = (sy - f.a * se) / n;
  }
  for (size_t i = 0; i < x.size(); ++i) f.residual += std::pow(f.At(x[i]) - y[i], 2);
  return f;
}

}  // namespace

double ExpFit::At(double x) const { return a * std::exp(-k * x) + c; }

ExpFit FitExponential(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 3 || x.size() != y.size()) {
    ExpFit flat;
    for (double v : y) flat.c += v / static_cast<double>(y.size());
    return flat;
  }
  // A local search over b = log k from b = 0, as the released code's optimize.fmin(f, 0): a
  // pattern search that halves its step when neither neighbour is better. Local on purpose: a
  // global minimum of the residual is often a slow, near-linear decay that extrapolates far below
  // the series, while the local one near k = 1 is the saturating curve the model is meant for.
  auto residual = [&](double b) { return Linear(x, y, std::exp(b)).residual; };
  double b = 0, r = residual(b);
  for (double step = 0.5; step > 1e-6;) {
    if (const double lo = residual(b - step); lo < r) {
      b -= step, r = lo;
    } else if (const double hi = residual(b + step); hi < r) {
      b += step, r = hi;
    } else {
      step /= 2;
    }
    b = std::clamp(b, -20.0, 5.0);
  }
  return Linear(x, y, std::exp(b));
}

}  // namespace dlsim::lrsched
