// Evaluator: per-tensor option prices and whole-strategy timelines
// (include/dlsim/studies/compress/selector.h).
#include <algorithm>

#include "dlsim/studies/compress/selector.h"

namespace dlsim::compress {

Evaluator::Evaluator(const Problem& p) : p_(p), forward_(p.cost->Forward(*p.tensors)) {
  const auto& options = p.tree->options;
  for (const GradientTensor& t : *p.tensors) {
    std::vector<StepList> prices;
    std::vector<int> distinct;
    prices.reserve(options.size());
    for (size_t o = 0; o < options.size(); ++o) {
      prices.push_back(p.cost->Price(t, options[o]));
      bool seen = false;
      for (int d : distinct) seen = seen || prices[d] == prices.back();
      if (!seen) distinct.push_back(static_cast<int>(o));
    }
    steps_.push_back(std::move(prices));
    distinct_.push_back(std::move(distinct));
  }
}

Timeline Evaluator::Run(const std::vector<int>& options) {
  ++evaluations_;
  std::vector<const StepList*> steps(options.size());
  for (size_t i = 0; i < options.size(); ++i) steps[i] = &steps_[i][options[i]];
  return Simulate(*p_.tensors, steps, forward_);
}

Result<int> Evaluator::Find(const std::string& label) const {
  const auto& options = p_.tree->options;
  for (size_t i = 0; i < options.size(); ++i)
    if (options[i].Label() == label) return static_cast<int>(i);
  return Error::NotFound("compression option '" + label + "' is not in the decision tree");
}

int BestUncompressed(const Evaluator& ev, int tensor) {
  int best = -1;
  Duration best_time;
  for (int o : ev.Distinct(tensor)) {
    if (ev.problem().tree->options[o].Compresses()) continue;
    Duration t;
    for (const Step& s : ev.Steps(tensor, o)) t += s.time;
    if (best < 0 || t < best_time) best = o, best_time = t;
  }
  return best;
}

std::vector<int> GpuOnly(const Evaluator& ev, int tensor) {
  std::vector<int> out;
  for (int o : ev.Distinct(tensor))
    if (!ev.problem().tree->options[o].UsesCpu()) out.push_back(o);
  return out;
}

}  // namespace dlsim::compress
