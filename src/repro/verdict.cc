// The verdict on a reproduction's headline and the geometric mean of its points table.
#include "dlsim/repro/verdict.h"

#include <cmath>

namespace dlsim::repro {

std::string_view VerdictName(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::kReproduced:
      return "reproduced";
    case VerdictStatus::kOff:
      return "off";
    case VerdictStatus::kNoClaim:
      return "no-claim";
  }
  return "no-claim";
}

bool ParseVerdictName(std::string_view word, VerdictStatus& out) {
  for (VerdictStatus s : {VerdictStatus::kReproduced, VerdictStatus::kOff, VerdictStatus::kNoClaim}) {
    if (word == VerdictName(s)) {
      out = s;
      return true;
    }
  }
  return false;
}

Verdict JudgeResult(const ReproResult& r) {
  Verdict v;
  if (!(r.paper_ratio > 0) || !std::isfinite(r.paper_ratio)) return v;  // nothing to compare
  v.ratio_to_paper = r.our_ratio > 0 && std::isfinite(r.our_ratio) ? r.our_ratio / r.paper_ratio : 0;
  const bool inside = v.ratio_to_paper >= kBandLow && v.ratio_to_paper <= kBandHigh;
  const bool declared = !r.operating_point.empty();
  v.status = inside && declared ? VerdictStatus::kReproduced : VerdictStatus::kOff;
  if (inside && !declared) {
    v.cause =
        !r.off_cause.empty()
            ? r.off_cause
            : "the paper's operating point is not declared: the headline is a statistic of our own sweep";
  } else if (!inside) {
    v.cause = !r.off_cause.empty()   ? r.off_cause
              : v.ratio_to_paper > 0 ? "cause not yet measured"
                                     : "ours could not run at the paper's operating point";
  }
  return v;
}

double PointsGeoMeanRatio(const std::vector<ReproPoint>& points) {
  double log_sum = 0;
  int n = 0;
  for (const ReproPoint& p : points) {
    if (!(p.paper > 0) || !(p.ours > 0) || !std::isfinite(p.paper) || !std::isfinite(p.ours)) continue;
    log_sum += std::log(p.ours / p.paper);
    ++n;
  }
  return n == 0 ? 0 : std::exp(log_sum / n);
}

}  // namespace dlsim::repro
