// Exhaustive search over every combination of (distinct) options: the optimum Espresso is measured
// against on small models.
#include <memory>
#include <string>

#include "dlsim/studies/compress/selector.h"

namespace dlsim::compress {
namespace {

class BruteForce final : public Selector {
 public:
  explicit BruteForce(long long limit) : limit_(limit) {}

  Result<Selection> Select(Evaluator& ev) const override {
    const int n = ev.tensors();
    long long combos = 1;
    for (int i = 0; i < n; ++i) {
      combos *= static_cast<long long>(ev.Distinct(i).size());
      if (combos > limit_)
        return Error::Infeasible("brute-force: more than " + std::to_string(limit_) + " strategies for " +
                                 std::to_string(n) + " tensors");
    }
    const long long before = ev.evaluations();
    std::vector<size_t> d(n, 0);
    std::vector<int> options(n);
    Selection best;
    while (true) {
      for (int i = 0; i < n; ++i) options[i] = ev.Distinct(i)[d[i]];
      Timeline t = ev.Run(options);
      if (best.options.empty() || t.iteration < best.timeline.iteration)
        best.timeline = t, best.options = options;
      int k = 0;
      while (k < n && ++d[k] == ev.Distinct(k).size()) d[k++] = 0;
      if (k == n) break;
    }
    best.evaluations = ev.evaluations() - before;
    return best;
  }

 private:
  long long limit_;
};

}  // namespace

std::unique_ptr<Selector> MakeBruteForceSelector(long long max_combinations) {
  return std::make_unique<BruteForce>(max_combinations);
}

}  // namespace dlsim::compress
