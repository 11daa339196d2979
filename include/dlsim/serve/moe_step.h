// The shape of one mixture-of-experts MLP step on one GPU of a serving replica (docs/serving.md, "MoE
// models"): how many experts a step's tokens reach, how many of those one GPU computes, and how many tokens
// each gets. Routing is taken as uniform and independent per token (no load imbalance between GPUs).
//
//   MoeStep s = MoeStepShape(model.moe, /*tokens=*/32, /*tp=*/2, /*ep=*/1);
//   time = s.experts_per_gpu x (expert GEMMs of s.tokens_per_expert rows and s.width columns)
#ifndef DLSIM_SERVE_MOE_STEP_H_
#define DLSIM_SERVE_MOE_STEP_H_

#include <cstdint>

#include "dlsim/model/model_spec.h"

namespace dlsim::serve {

// Expected number of the `experts` that at least one of `tokens` tokens routes to, each token choosing
// `top_k` distinct experts uniformly: E (1 - (1 - k/E)^tokens). 0 with no tokens; at most E.
double ExpectedActiveExperts(int experts, int top_k, int64_t tokens);

struct MoeStep {
  double experts_per_gpu = 0;     // expected active experts one GPU computes
  int64_t tokens_per_expert = 0;  // rows of each active expert's GEMMs (tokens x top_k / active, >= 1)
  int64_t width = 0;              // each expert's FFN width on one GPU
};

// `ep` == 1: every expert is split over the `tp` GPUs (vLLM's default for MoE models), so each GPU computes
// every active expert at width expert_ffn_hidden / tp. `ep` == tp: the experts are spread whole over the tp
// GPUs (expert parallelism), each computing active / ep of them at full width. The output is all-reduced over
// the tp GPUs either way (the layer's existing all-reduce).
MoeStep MoeStepShape(const model::MoeSpec& moe, int64_t tokens, int tp, int ep);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_MOE_STEP_H_
