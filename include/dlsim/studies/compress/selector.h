// Compression-strategy selectors: given a model's gradient tensors, the option tree and a cost model,
// choose one option per tensor. Policies behind a registry ("fp32", "hipress", "espresso-gpu",
// "espresso", "brute-force"; `dlsim list compression-selector`).
//
//   compress::SelectorRegistry reg("compression-selector");
//   compress::RegisterSelectors(reg);
//   compress::Evaluator ev(problem);
//   auto sel = (*reg.Create("espresso"))->Select(ev);   // Result<Selection>
#ifndef DLSIM_STUDIES_COMPRESS_SELECTOR_H_
#define DLSIM_STUDIES_COMPRESS_SELECTOR_H_

#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/studies/compress/inputs.h"
#include "dlsim/studies/compress/option_tree.h"
#include "dlsim/studies/compress/timeline.h"

namespace dlsim::compress {

// What a selector works on. Borrows everything; the pointers must outlive the Evaluator.
struct Problem {
  const std::vector<GradientTensor>* tensors = nullptr;
  const OptionTree* tree = nullptr;
  const CostModel* cost = nullptr;
};

// Prices every option for every tensor once and runs timelines of whole strategies. Options whose steps
// are identical for a tensor are interchangeable there; Distinct() keeps the first of each.
// Not thread-safe (it counts evaluations).
class Evaluator {
 public:
  explicit Evaluator(const Problem& p);
  const Problem& problem() const { return p_; }
  int tensors() const { return static_cast<int>(p_.tensors->size()); }
  const std::vector<int>& Distinct(int tensor) const { return distinct_[tensor]; }
  const StepList& Steps(int tensor, int option) const { return steps_[tensor][option]; }
  Timeline Run(const std::vector<int>& options);  // one option index per tensor
  long long evaluations() const { return evaluations_; }
  // Index of the option with this Label(), or an error naming it.
  Result<int> Find(const std::string& label) const;

 private:
  Problem p_;
  Duration forward_;
  std::vector<std::vector<StepList>> steps_;
  std::vector<std::vector<int>> distinct_;
  long long evaluations_ = 0;
};

struct Selection {
  std::vector<int> options;  // per tensor, into tree->options
  Timeline timeline;
  long long evaluations = 0;  // timelines simulated to find it
};

class Selector {
 public:
  virtual ~Selector() = default;
  // Errors: the option a baseline needs is missing from the tree; a search larger than its limit.
  virtual Result<Selection> Select(Evaluator& ev) const = 0;
};

using SelectorRegistry = Registry<Selector>;
void RegisterSelectors(SelectorRegistry& reg);

// The policies (one file each); the registry lists them.
std::unique_ptr<Selector> MakeFp32Selector();  // baselines.cc: flat all-reduce, no compression
std::unique_ptr<Selector> MakeHiPressSelector(double large_elements = 1 << 20);  // baselines.cc
std::unique_ptr<Selector> MakeEspressoSelector(bool cpu_offload,
                                               long long max_offload_combinations = 1000000);
std::unique_ptr<Selector> MakeBruteForceSelector(long long max_combinations = 20000000);  // brute_force.cc

// The uncompressed option whose steps take the least total time for `tensor` (BytePS picks its
// fastest all-reduce scheme: flat, hierarchical, reduce/broadcast).
int BestUncompressed(const Evaluator& ev, int tensor);
// Options that use only the GPU (uncompressed ones included), as Espresso's GPU stage considers.
std::vector<int> GpuOnly(const Evaluator& ev, int tensor);

}  // namespace dlsim::compress

#endif  // DLSIM_STUDIES_COMPRESS_SELECTOR_H_
