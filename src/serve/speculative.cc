#include "dlsim/serve/speculative.h"

#include <algorithm>
#include <cmath>

#include "dlsim/serve/options.h"

namespace dlsim::serve {

double SpeculativeOptions::TokensPerStep() const {
  if (num_tokens <= 0) return 1;
  const double a = std::clamp(acceptance_rate, 0.0, 1.0);
  if (a >= 1) return num_tokens + 1;
  return (1 - std::pow(a, num_tokens + 1)) / (1 - a);
}

namespace {

class SpeculativeCostModel final : public IterationCostModel {
 public:
  SpeculativeCostModel(std::unique_ptr<IterationCostModel> target, std::unique_ptr<IterationCostModel> draft,
                       int k, int draft_layers)
      : target_(std::move(target)), draft_(std::move(draft)), k_(k), draft_layers_(draft_layers) {}

  IterationTime Time(const BatchShape& b) const override {
    IterationTime t = target_->Time(b);
    if (draft_ == nullptr || b.tokens() == 0) return t;
    BatchShape first = b;  // the prompt chunks and every request's first draft token
    first.spec_tokens = 0;
    first.logits = b.decode_requests + (b.logits - b.decode_requests * (1 + b.spec_tokens));
    t.fixed += draft_->Time(first).Total(draft_layers_);
    if (b.decode_requests > 0 && k_ > 1)
      t.fixed += draft_->Time(BatchShape::Decode(b.decode_requests, b.decode_context)).Total(draft_layers_) *
                 int64_t{k_ - 1};
    return t;
  }
  bool profiled() const override { return target_->profiled(); }

 private:
  std::unique_ptr<IterationCostModel> target_, draft_;
  int k_ = 0, draft_layers_ = 1;
};

}  // namespace

std::unique_ptr<IterationCostModel> MakeSpeculativeCostModel(std::unique_ptr<IterationCostModel> target,
                                                             std::unique_ptr<IterationCostModel> draft, int k,
                                                             int draft_layers) {
  return std::make_unique<SpeculativeCostModel>(std::move(target), std::move(draft), k, draft_layers);
}

}  // namespace dlsim::serve
