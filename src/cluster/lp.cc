// LinearProgram over GLPK: the only file that includes glpk.h. Inputs are validated first because
// GLPK aborts the process on a malformed call (a bad index, lower > upper).
#include "dlsim/cluster/lp.h"

#include <fmt/format.h>
#include <glpk.h>

#include <cmath>
#include <memory>

namespace dlsim::cluster {
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

int LinearProgram::AddVariable(double lower, double upper, double objective) {
  vars_.push_back({lower, upper, objective});
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

Result<LpSolution> LinearProgram::Maximize() const {
  DLSIM_RETURN_IF_ERROR(Validate());
  Problem p(glp_create_prob());
  glp_set_obj_dir(p.get(), GLP_MAX);
  glp_add_cols(p.get(), variables());
  for (int v = 0; v < variables(); ++v) {
    glp_set_col_bnds(p.get(), v + 1, BoundType(vars_[v].lower, vars_[v].upper), vars_[v].lower,
                     vars_[v].upper);
    glp_set_obj_coef(p.get(), v + 1, vars_[v].objective);
  }
  std::vector<int> ia{0}, ja{0};  // GLPK arrays are 1-based
  std::vector<double> ar{0};
  if (rows() > 0) glp_add_rows(p.get(), rows());
  for (int r = 0; r < rows(); ++r) {
    glp_set_row_bnds(p.get(), r + 1, BoundType(rows_[r].lower, rows_[r].upper), rows_[r].lower,
                     rows_[r].upper);
    for (const auto& [v, coef] : rows_[r].terms) ia.push_back(r + 1), ja.push_back(v + 1), ar.push_back(coef);
  }
  glp_load_matrix(p.get(), static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_OFF;
  const int rc = glp_simplex(p.get(), &parm);
  if (rc == GLP_ENOPFS) return Error::Infeasible("lp: no feasible solution");
  if (rc == GLP_ENODFS) return Error::Internal("lp: the objective is unbounded");
  if (rc != 0) return Error::Internal(fmt::format("lp: GLPK simplex failed (code {})", rc));
  const int status = glp_get_status(p.get());
  if (status == GLP_NOFEAS) return Error::Infeasible("lp: no feasible solution");
  if (status == GLP_UNBND) return Error::Internal("lp: the objective is unbounded");
  if (status != GLP_OPT) return Error::Internal(fmt::format("lp: GLPK ended with status {}", status));
  LpSolution s{glp_get_obj_val(p.get()), std::vector<double>(vars_.size())};
  for (int v = 0; v < variables(); ++v) s.x[v] = glp_get_col_prim(p.get(), v + 1);
  return s;
}

}  // namespace dlsim::cluster
