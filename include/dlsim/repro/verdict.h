// Whether a reproduction reproduces its paper: our headline over the paper's, inside a fixed band
// ([0.8, 1.25]x) or not, with the measured cause where it is not; and the geometric mean of a
// `points` table (ours over the paper's, point for point).
//
//   const repro::Verdict v = repro::JudgeResult(result);
//   if (v.status == repro::VerdictStatus::kOff) std::cout << v.cause;
//
// Pure functions of a ReproResult; the band is the same for every reproduction (issue 33).
#ifndef DLSIM_REPRO_VERDICT_H_
#define DLSIM_REPRO_VERDICT_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {

inline constexpr double kBandLow = 0.8;    // ours / paper at or above this ...
inline constexpr double kBandHigh = 1.25;  // ... and at or below this: reproduced

enum class VerdictStatus {
  kReproduced,  // headline within [kBandLow, kBandHigh] of the paper's, at a declared operating point
  kOff,         // outside the band, ours could not run, or no operating point declared: `cause` says why
  kNoClaim,     // the paper states no number to compare (paper_ratio <= 0)
};

struct Verdict {
  VerdictStatus status = VerdictStatus::kNoClaim;
  double ratio_to_paper = 0;  // our_ratio / paper_ratio (0 without a claim or a result)
  std::string cause;          // kOff: the reproduction's measured cause, or that none is measured yet
};

// "reproduced", "off", "no-claim".
std::string_view VerdictName(VerdictStatus s);
// Parses VerdictName's words; false for anything else.
bool ParseVerdictName(std::string_view word, VerdictStatus& out);

// The verdict on `r`'s headline (our_ratio against paper_ratio).
Verdict JudgeResult(const ReproResult& r);

// The geometric mean of ours / paper over the points where both are positive; 0 when none is.
double PointsGeoMeanRatio(const std::vector<ReproPoint>& points);

}  // namespace dlsim::repro

#endif  // DLSIM_REPRO_VERDICT_H_
