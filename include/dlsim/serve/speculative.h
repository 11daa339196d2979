// Speculative decoding (serve/options.h, SpeculativeOptions; docs/serving.md, "Speculative decoding"): the
// iteration cost of a step that drafts k tokens per decoding request and verifies them in one target pass.
//
//   auto cost = MakeSpeculativeCostModel(std::move(target), std::move(draft), k, draft_layers);
#ifndef DLSIM_SERVE_SPECULATIVE_H_
#define DLSIM_SERVE_SPECULATIVE_H_

#include <memory>

#include "dlsim/serve/iteration_cost.h"

namespace dlsim::serve {

// A step's time: the target's on the batch as scheduled (each decode with 1 + k queries,
// BatchShape::spec_tokens) plus, with a draft model, the draft's: the batch's prefill chunks and one decode
// token per request, then k - 1 more decode passes. `draft` may be null (n-gram drafting: no GPU cost). The
// draft's time is in `fixed`.
std::unique_ptr<IterationCostModel> MakeSpeculativeCostModel(std::unique_ptr<IterationCostModel> target,
                                                             std::unique_ptr<IterationCostModel> draft, int k,
                                                             int draft_layers);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_SPECULATIVE_H_
