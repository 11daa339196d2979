// Nelder-Mead simplex minimisation (see the header for the contract).
#include "dlsim/core/nelder_mead.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "dlsim/core/cancel.h"

namespace dlsim {
namespace {

// The simplex: n + 1 vertices and their values, and the count of evaluations of f.
struct Simplex {
  const ObjectiveFn& f;
  std::vector<std::vector<double>> p;
  std::vector<double> v;
  int evaluations = 0;

  double Eval(const std::vector<double>& x) {
    ++evaluations;
    return f(x);
  }
  void Replace(size_t i, std::vector<double> x, double fx) {
    p[i] = std::move(x);
    v[i] = fx;
  }
  void ShrinkTowards(size_t best) {
    const size_t n = p.size() - 1;
    for (size_t i = 0; i <= n; ++i) {
      if (i == best) continue;
      for (size_t j = 0; j < n; ++j) p[i][j] = p[best][j] + 0.5 * (p[i][j] - p[best][j]);
      v[i] = Eval(p[i]);
    }
  }
  void Iterate(std::vector<size_t>& order);
  bool Converged(double tolerance) const {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi - *lo <= tolerance * std::max(1.0, std::fabs(*lo));
  }
};

// One iteration: reflect the worst vertex through the centroid of the others, then expand,
// contract or shrink.
void Simplex::Iterate(std::vector<size_t>& order) {
  const size_t n = p.size() - 1;
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [this](size_t a, size_t b) { return v[a] < v[b]; });
  const size_t best = order[0], worst = order[n], second = order[n - 1];
  std::vector<double> c(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) c[j] += p[order[i]][j] / static_cast<double>(n);
  }
  auto along = [&](double t) {
    std::vector<double> x(n);
    for (size_t j = 0; j < n; ++j) x[j] = c[j] + t * (p[worst][j] - c[j]);
    return x;
  };
  auto xr = along(-1.0);
  const double fr = Eval(xr);
  if (fr < v[best]) {
    auto xe = along(-2.0);
    const double fe = Eval(xe);
    if (fe < fr) {
      Replace(worst, std::move(xe), fe);
    } else {
      Replace(worst, std::move(xr), fr);
    }
  } else if (fr < v[second]) {
    Replace(worst, std::move(xr), fr);
  } else {
    auto xc = along(fr < v[worst] ? -0.5 : 0.5);
    const double fc = Eval(xc);
    if (fc < std::min(fr, v[worst])) {
      Replace(worst, std::move(xc), fc);
    } else {
      ShrinkTowards(best);
    }
  }
}

}  // namespace

NelderMeadResult MinimizeNelderMead(const ObjectiveFn& f, std::vector<double> x0,
                                    const std::vector<double>& step, const NelderMeadOptions& options) {
  const size_t n = x0.size();
  Simplex s{f, std::vector<std::vector<double>>(n + 1, x0), std::vector<double>(n + 1)};
  for (size_t i = 0; i < n; ++i) s.p[i + 1][i] += step[i];
  for (size_t i = 0; i <= n; ++i) s.v[i] = s.Eval(s.p[i]);
  std::vector<size_t> order(n + 1);
  NelderMeadResult r;
  for (; r.iterations < options.iterations; ++r.iterations) {
    if (CancelRequested()) break;  // the caller sees the request and returns CancelledError()
    if (options.f_tolerance >= 0 && s.Converged(options.f_tolerance)) {
      r.converged = true;
      break;
    }
    s.Iterate(order);
  }
  const size_t best = static_cast<size_t>(std::min_element(s.v.begin(), s.v.end()) - s.v.begin());
  r.x = s.p[best];
  r.value = s.v[best];
  r.evaluations = s.evaluations;
  return r;
}

std::vector<double> NelderMead(const ObjectiveFn& f, std::vector<double> x0, const std::vector<double>& step,
                               int iterations) {
  return MinimizeNelderMead(f, std::move(x0), step, {.iterations = iterations}).x;
}

}  // namespace dlsim
