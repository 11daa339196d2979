// A small linear or mixed-integer program, solved by GLPK (docs/design/dependencies.md): variables
// with bounds, an objective coefficient and optionally integrality, rows (linear constraints) with
// bounds; maximise or minimise. Without integer variables: the simplex (the cluster policies' LPs);
// with them: the simplex, then GLPK's branch and cut from its optimum (the planner's sharding ILP).
//
//   LinearProgram lp;
//   int x = lp.AddVariable(0, 4, 1.0);             // 0 <= x <= 4, objective + x
//   int y = lp.AddVariable(0, kLpInfinity, 2.0);   // y >= 0, objective + 2y
//   lp.AddRow({{x, 1}, {y, 1}}, -kLpInfinity, 3);  // x + y <= 3
//   Result<LpSolution> s = lp.Maximize();          // objective 6 at x = 0, y = 3
//   int b = lp.AddVariable(0, 1, 1.0, /*integer=*/true);   // a binary
//
// A value: building it does not touch GLPK; Maximize() / Minimize() build a GLPK problem, solves it and frees
// it (RAII), so a LinearProgram may be solved many times and copied. Deterministic: the same
// program gives the same solution bit for bit. Thread-safety: distinct objects may be solved on
// distinct threads (GLPK keeps its environment in thread-local storage).
#ifndef DLSIM_CORE_LINEAR_PROGRAM_H_
#define DLSIM_CORE_LINEAR_PROGRAM_H_

#include <limits>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim {

inline constexpr double kLpInfinity = std::numeric_limits<double>::infinity();

struct LpSolution {
  double objective = 0;
  std::vector<double> x;  // by variable index
};

class LinearProgram {
 public:
  // Adds a variable lower <= x <= upper (either may be +-kLpInfinity) with objective coefficient
  // `objective`, integral when `integer`; returns its index (0, 1, ...).
  int AddVariable(double lower, double upper, double objective, bool integer = false);
  // Adds the row lower <= sum(coef x[var]) <= upper; returns its index. A variable may appear
  // once per row.
  int AddRow(std::vector<std::pair<int, double>> terms, double lower, double upper);
  int variables() const { return static_cast<int>(vars_.size()); }
  int rows() const { return static_cast<int>(rows_.size()); }

  // The optimum. Errors: InvalidArgument for a malformed program (a NaN or infinite coefficient,
  // lower > upper, an unknown or repeated variable in a row, no variables); Infeasible when no
  // point satisfies the constraints; Internal when the objective is unbounded or GLPK fails. With
  // integer variables the solution is integral (x exactly an integer there) and optimal to GLPK's
  // default relative gap (0: proven optimal).
  Result<LpSolution> Maximize() const;
  Result<LpSolution> Minimize() const;
  bool has_integers() const;

  // The program as added (what the solver reads).
  struct Var {
    double lower, upper, objective;
    bool integer;
  };
  struct Row {
    std::vector<std::pair<int, double>> terms;
    double lower, upper;
  };

 private:
  Status Validate() const;
  Result<LpSolution> Solve(bool maximize) const;
  std::vector<Var> vars_;
  std::vector<Row> rows_;
};

}  // namespace dlsim

#endif  // DLSIM_CORE_LINEAR_PROGRAM_H_
