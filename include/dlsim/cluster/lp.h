// A small linear program, solved by GLPK's simplex (docs/design/dependencies.md): variables with
// bounds and an objective coefficient, rows (linear constraints) with bounds, maximise.
//
//   LinearProgram lp;
//   int x = lp.AddVariable(0, 4, 1.0);             // 0 <= x <= 4, objective + x
//   int y = lp.AddVariable(0, kLpInfinity, 2.0);   // y >= 0, objective + 2y
//   lp.AddRow({{x, 1}, {y, 1}}, -kLpInfinity, 3);  // x + y <= 3
//   Result<LpSolution> s = lp.Maximize();          // objective 6 at x = 0, y = 3
//
// A value: building it does not touch GLPK; Maximize() builds a GLPK problem, solves it and frees
// it (RAII), so a LinearProgram may be solved many times and copied. Deterministic: the same
// program gives the same solution bit for bit. Thread-safety: distinct objects may be solved on
// distinct threads (GLPK keeps its environment in thread-local storage).
#ifndef DLSIM_CLUSTER_LP_H_
#define DLSIM_CLUSTER_LP_H_

#include <limits>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::cluster {

inline constexpr double kLpInfinity = std::numeric_limits<double>::infinity();

struct LpSolution {
  double objective = 0;
  std::vector<double> x;  // by variable index
};

class LinearProgram {
 public:
  // Adds a variable lower <= x <= upper (either may be +-kLpInfinity) with objective coefficient
  // `objective`; returns its index (0, 1, ...).
  int AddVariable(double lower, double upper, double objective);
  // Adds the row lower <= sum(coef x[var]) <= upper; returns its index. A variable may appear
  // once per row.
  int AddRow(std::vector<std::pair<int, double>> terms, double lower, double upper);
  int variables() const { return static_cast<int>(vars_.size()); }
  int rows() const { return static_cast<int>(rows_.size()); }

  // The optimum. Errors: InvalidArgument for a malformed program (a NaN or infinite coefficient,
  // lower > upper, an unknown or repeated variable in a row, no variables); Infeasible when no
  // point satisfies the constraints; Internal when the objective is unbounded or GLPK fails.
  Result<LpSolution> Maximize() const;

 private:
  struct Var {
    double lower, upper, objective;
  };
  struct Row {
    std::vector<std::pair<int, double>> terms;
    double lower, upper;
  };
  Status Validate() const;
  std::vector<Var> vars_;
  std::vector<Row> rows_;
};

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_LP_H_
