// The outcome of simulating one candidate, reduced to what the planner ranks
// and reports, and its byte encoding (for back-ends that move results between
// processes).
#ifndef DLSIM_PLAN_EVALUATION_H_
#define DLSIM_PLAN_EVALUATION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/train/step_model.h"

namespace dlsim::plan {

struct Evaluation {
  bool feasible = false;
  std::string reason;  // why not, when infeasible (simulator's reason, or the headroom)
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;
  double peak_memory_bytes = 0;
  int micro_batches = 0;
  train::Breakdown breakdown;
  std::string bottleneck;

  // Field-by-field (bitwise on the doubles, via the encoding).
  bool operator==(const Evaluation& other) const;
};

// Appends `e` to `out` (native byte order: for processes of one build on one
// architecture).
void EncodeEvaluation(const Evaluation& e, std::string* out);
// Decodes evaluations written by EncodeEvaluation back to back. Error (kParse)
// on truncation.
Result<std::vector<Evaluation>> DecodeEvaluations(std::string_view bytes);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_EVALUATION_H_
