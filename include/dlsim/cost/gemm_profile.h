// Measured GEMM latencies in the compact CSV of data/profiles/vidur_gemm.csv (made by
// scripts/extract-gemm-profiles from vidur's A100/H100 operator profiles; MIT):
//   gpu,model,op,tp,m,n,k,us        ('#' lines are comments)
//
//   Result<std::vector<GemmProfileRow>> rows = ParseGemmProfiles(text, "vidur_gemm.csv");
//
// Pure function; thread-safe.
#ifndef DLSIM_COST_GEMM_PROFILE_H_
#define DLSIM_COST_GEMM_PROFILE_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/compute_model.h"

namespace dlsim::cost {

struct GemmProfileRow {
  std::string gpu;    // "a100", "h100" (catalog aliases)
  std::string model;  // "Llama-2-7b-hf", ...
  std::string op;     // "attn_pre_proj", ...
  int tp = 1;
  GemmShape shape;
  double measured_s = 0;
};

// Errors name file, line and column, and what was expected (positive integers, positive time).
Result<std::vector<GemmProfileRow>> ParseGemmProfiles(std::string_view text, const std::string& file_name);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_GEMM_PROFILE_H_
