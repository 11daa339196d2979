// LinearProgram over GLPK: the only file that includes glpk.h. Inputs are validated first because
// GLPK aborts the process on a malformed call (a bad index, lower > upper).
#include "dlsim/core/linear_program.h"

#include <fmt/format.h>
#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace dlsim {
namespace {

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using Problem = std::unique_ptr<glp_prob, ProblemDeleter>;

// GLPK's bound type for lower <= v <= upper.
int BoundType(double lower, double upper) {
  const bool lo = std::isfinite(lower), up = std::isfinite(upper);
  if (lo && up) return lower == upper ? GLP_FX : GLP_DB;
  return lo ? GLP_LO : up ? GLP_UP : GLP_FR;
}

Status CheckBounds(double lower, double upper, const char* what, int index) {
  if (std::isnan(lower) || std::isnan(upper) || lower > upper || lower == kLpInfinity ||
      upper == -kLpInfinity)
    return Error::InvalidArgument(
        fmt::format("lp {} {}: bounds [{}, {}] are empty", what, index, lower, upper));
  return Status::Ok();
}

}  // namespace

int LinearProgram::AddVariable(double lower, double upper, double objective, bool integer) {
  vars_.push_back({lower, upper, objective, integer});
  return static_cast<int>(vars_.size()) - 1;
}

int LinearProgram::AddRow(std::vector<std::pair<int, double>> terms, double lower, double upper) {
  rows_.push_back({std::move(terms), lower, upper});
  return static_cast<int>(rows_.size()) - 1;
}

Status LinearProgram::Validate() const {
  if (vars_.empty()) return Error::InvalidArgument("lp: no variables");
  for (size_t v = 0; v < vars_.size(); ++v) {
    DLSIM_RETURN_IF_ERROR(CheckBounds(vars_[v].lower, vars_[v].upper, "variable", static_cast<int>(v)));
    if (!std::isfinite(vars_[v].objective))
      return Error::InvalidArgument(
          fmt::format("lp variable {}: objective {} is not finite", v, vars_[v].objective));
  }
  std::vector<int> seen(vars_.size(), -1);
  for (size_t r = 0; r < rows_.size(); ++r) {
    DLSIM_RETURN_IF_ERROR(CheckBounds(rows_[r].lower, rows_[r].upper, "row", static_cast<int>(r)));
    for (const auto& [v, coef] : rows_[r].terms) {
      if (v < 0 || v >= variables() || seen[v] == static_cast<int>(r) || !std::isfinite(coef))
        return Error::InvalidArgument(
            fmt::format("lp row {}: term (variable {}, {}) is unknown, repeated or not finite", r, v, coef));
      seen[v] = static_cast<int>(r);
    }
  }
  return Status::Ok();
}

bool LinearProgram::has_integers() const {
  return std::any_of(vars_.begin(), vars_.end(), [](const Var& v) { return v.integer; });
}

Result<LpSolution> LinearProgram::Maximize() const { return Solve(true); }
Result<LpSolution> LinearProgram::Minimize() const { return Solve(false); }

namespace {

// Copies the program into a new GLPK problem.
Problem Load(bool maximize, const std::vector<LinearProgram::Var>& vars,
             const std::vector<LinearProgram::Row>& rows) {
  Problem p(glp_create_prob());
  glp_set_obj_dir(p.get(), maximize ? GLP_MAX : GLP_MIN);
  glp_add_cols(p.get(), static_cast<int>(vars.size()));
  for (size_t v = 0; v < vars.size(); ++v) {
    const int col = static_cast<int>(v) + 1;
    glp_set_col_bnds(p.get(), col, BoundType(vars[v].lower, vars[v].upper), vars[v].lower, vars[v].upper);
    glp_set_obj_coef(p.get(), col, vars[v].objective);
    if (vars[v].integer) glp_set_col_kind(p.get(), col, GLP_IV);
  }
  std::vector<int> ia{0}, ja{0};  // GLPK arrays are 1-based
  std::vector<double> ar{0};
  if (!rows.empty()) glp_add_rows(p.get(), static_cast<int>(rows.size()));
  for (size_t r = 0; r < rows.size(); ++r) {
    const int row = static_cast<int>(r) + 1;
    glp_set_row_bnds(p.get(), row, BoundType(rows[r].lower, rows[r].upper), rows[r].lower, rows[r].upper);
    for (const auto& [v, coef] : rows[r].terms) ia.push_back(row), ja.push_back(v + 1), ar.push_back(coef);
  }
  glp_load_matrix(p.get(), static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  return p;
}

// The simplex's optimum, or the error that stopped it.
Status SolveRelaxation(glp_prob* p) {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_OFF;
  const int rc = glp_simplex(p, &parm);
  if (rc == GLP_ENOPFS) return Error::Infeasible("lp: no feasible solution");
  if (rc == GLP_ENODFS) return Error::Internal("lp: the objective is unbounded");
  if (rc != 0) return Error::Internal(fmt::format("lp: GLPK simplex failed (code {})", rc));
  const int status = glp_get_status(p);
  if (status == GLP_NOFEAS) return Error::Infeasible("lp: no feasible solution");
  if (status == GLP_UNBND) return Error::Internal("lp: the objective is unbounded");
  if (status != GLP_OPT) return Error::Internal(fmt::format("lp: GLPK ended with status {}", status));
  return Status::Ok();
}

// Branch and cut from the relaxation's optimum.
Status SolveIntegers(glp_prob* p) {
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  const int rc = glp_intopt(p, &parm);
  if (rc == GLP_ENOPFS) return Error::Infeasible("lp: no integer feasible solution");
  if (rc != 0) return Error::Internal(fmt::format("lp: GLPK branch and cut failed (code {})", rc));
  const int status = glp_mip_status(p);
  if (status == GLP_NOFEAS) return Error::Infeasible("lp: no integer feasible solution");
  if (status != GLP_OPT)
    return Error::Internal(fmt::format("lp: GLPK's integer search ended with status {}", status));
  return Status::Ok();
}

}  // namespace

Result<LpSolution> LinearProgram::Solve(bool maximize) const {
  DLSIM_RETURN_IF_ERROR(Validate());
  Problem p = Load(maximize, vars_, rows_);
  DLSIM_RETURN_IF_ERROR(SolveRelaxation(p.get()));
  const bool mip = has_integers();
  if (mip) DLSIM_RETURN_IF_ERROR(SolveIntegers(p.get()));
  LpSolution s{mip ? glp_mip_obj_val(p.get()) : glp_get_obj_val(p.get()), std::vector<double>(vars_.size())};
  for (int v = 0; v < variables(); ++v) {
    s.x[v] = mip ? glp_mip_col_val(p.get(), v + 1) : glp_get_col_prim(p.get(), v + 1);
    if (vars_[v].integer) s.x[v] = std::round(s.x[v]);
  }
  return s;
}

}  // namespace dlsim
