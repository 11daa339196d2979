// Measured per-operator GPU times (Vidur operator profiles) and their interpolation.
//
// One OperatorProfile holds, for one (GPU, model, TP degree), the median time of each
// token-level operator of a transformer layer at a grid of batch token counts. Between grid
// points the time is interpolated linearly in the token count; beyond the last point it is
// scaled in proportion to the tokens (the operators are compute-bound there); below the first
// point the first value is used.
//
//   auto profiles = serve::DefaultOperatorProfiles();   // embedded data/serving/vidur_operator_profiles.csv
//   const serve::OperatorProfile* p = serve::FindProfile(*profiles, "a100-sxm4-80gb", "llama2-7b", 1);
//   double ms = p->InterpolateMs(serve::ProfiledOp::kMlpUp, 700);
//
// Values; thread-safe for concurrent const use.
#ifndef DLSIM_SERVE_OPERATOR_PROFILE_H_
#define DLSIM_SERVE_OPERATOR_PROFILE_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::serve {

// Vidur's token-level operators, in the column order of the data file.
enum class ProfiledOp {
  kEmbedding,
  kInputNorm,
  kQkvProj,
  kRope,
  kOutProj,
  kPostAttnNorm,
  kMlpUp,
  kMlpAct,
  kMlpDown,
  kAdd
};
inline constexpr int kNumProfiledOps = 10;
// Column names: "emb", "input_layernorm", "attn_pre_proj", ... (Vidur's names).
std::string_view ProfiledOpName(ProfiledOp op);

struct OperatorProfile {
  std::string gpu;    // catalog GPU name
  std::string model;  // catalog model name
  int tp = 1;
  std::vector<int64_t> tokens;                          // ascending grid
  std::array<std::vector<double>, kNumProfiledOps> ms;  // per op, aligned with tokens

  // Interpolated time in ms of `op` at `tokens` (>= 1). Precondition: the grid is non-empty.
  double InterpolateMs(ProfiledOp op, double tokens) const;
  // Sum of the ops run once per transformer layer (everything but the embedding), ms.
  double LayerMs(double tokens) const;
  // The profile restricted to grid rows whose index i has i % stride == phase (for held-out tests).
  OperatorProfile Subsample(int stride, int phase) const;
};

// Parses the CSV format of data/serving/vidur_operator_profiles.csv. Errors (kParse /
// kInvalidArgument) name the file and line.
Result<std::vector<OperatorProfile>> ParseOperatorProfiles(std::string_view csv_text, std::string file_name);
// The embedded copy of data/serving/vidur_operator_profiles.csv.
Result<std::vector<OperatorProfile>> DefaultOperatorProfiles();
// The profile for (gpu, model, tp), or nullptr.
const OperatorProfile* FindProfile(const std::vector<OperatorProfile>& profiles, std::string_view gpu,
                                   std::string_view model, int tp);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_OPERATOR_PROFILE_H_
