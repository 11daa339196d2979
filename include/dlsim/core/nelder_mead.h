// Derivative-free minimisation with the Nelder-Mead simplex (reflection 1, expansion 2,
// contraction 1/2, shrink 1/2), as the calibration fits use it.
//
//   auto f = [](const std::vector<double>& x) { return (x[0] - 3) * (x[0] - 3); };
//   NelderMeadResult r = MinimizeNelderMead(f, {0.0}, {1.0}, {.iterations = 100});
//   // r.x[0] ~ 3, r.value ~ 0
//
// Deterministic: the same f, start, steps and options give the same bits. Pure computation;
// thread-compatible (f is called from the calling thread only).
#ifndef DLSIM_CORE_NELDER_MEAD_H_
#define DLSIM_CORE_NELDER_MEAD_H_

#include <functional>
#include <vector>

namespace dlsim {

using ObjectiveFn = std::function<double(const std::vector<double>&)>;

struct NelderMeadOptions {
  int iterations = 100;  // the most simplex iterations
  // Stop early once max f - min f over the simplex is at most this (relative to max(1, |min f|)).
  // Negative: never stop early (always run `iterations`).
  double f_tolerance = -1;
};

struct NelderMeadResult {
  std::vector<double> x;   // the best vertex
  double value = 0;        // f(x)
  int iterations = 0;      // iterations run
  int evaluations = 0;     // calls of f
  bool converged = false;  // stopped by f_tolerance (false when f_tolerance < 0)
};

// Minimises f over R^n from x0; the initial simplex is x0 and x0 + step[i] e_i. Stops early, with the best
// vertex so far, when cancellation is requested (core/cancel.h): the caller must then check
// CancelRequested(). Preconditions: x0 non-empty, step.size() == x0.size().
NelderMeadResult MinimizeNelderMead(const ObjectiveFn& f, std::vector<double> x0,
                                    const std::vector<double>& step, const NelderMeadOptions& options);

// The best vertex after exactly `iterations` iterations (no early stop).
std::vector<double> NelderMead(const ObjectiveFn& f, std::vector<double> x0, const std::vector<double>& step,
                               int iterations);

}  // namespace dlsim

#endif  // DLSIM_CORE_NELDER_MEAD_H_
