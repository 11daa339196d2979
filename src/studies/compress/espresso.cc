// Espresso's compression decision algorithm (EuroSys'23 section 4.4):
// Algorithm 1 (GPU compression): candidates sorted by size, largest first (ties: closer to the output);
//   Remove() drops the tensors communicated before the last bubble of the current timeline (compressing
//   them only widens the bubble); GetBestOption() tries every GPU option for one tensor with the others
//   fixed and keeps the one with the shortest simulated iteration; Remove() again after each decision.
// Algorithm 2 (CPU offload): tensors compressed on the GPU are grouped by (size, option); by Lemma 1 a
//   group offloads the q tensors farthest from the output; every (q_1, ..., q_m) is tried,
//   O(prod(|G_i| + 1)) timelines, and the best kept.
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include "dlsim/studies/compress/selector.h"

namespace dlsim::compress {
namespace {

struct Group {
  std::vector<int> tensors;  // farthest from the output first
  int cpu_option = -1;
};

class Espresso final : public Selector {
 public:
  Espresso(bool cpu, long long max_offload) : cpu_(cpu), max_offload_(max_offload) {}

  Result<Selection> Select(Evaluator& ev) const override {
    const long long before = ev.evaluations();
    Selection s;
    for (int i = 0; i < ev.tensors(); ++i) s.options.push_back(BestUncompressed(ev, i));
    s.timeline = GpuStage(ev, s.options);
    if (cpu_) {
      DLSIM_ASSIGN_OR_RETURN(s.timeline, CpuStage(ev, s.options, s.timeline));
    }
    s.evaluations = ev.evaluations() - before;
    return s;
  }

 private:
  // Algorithm 1; returns the timeline of the chosen options.
  static Timeline GpuStage(Evaluator& ev, std::vector<int>& options) {
    const auto& tensors = *ev.problem().tensors;
    std::vector<int> order(tensors.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return tensors[a].elements > tensors[b].elements; });
    Timeline tl = ev.Run(options);
    for (int c : order) {
      if (c < tl.last_bubble) continue;  // Remove()
      int best = options[c];
      Duration best_time = tl.iteration;
      for (int o : GpuOnly(ev, c)) {
        options[c] = o;
        const Duration t = ev.Run(options).iteration;
        if (t < best_time) best_time = t, best = o;
      }
      options[c] = best;
      tl = ev.Run(options);
    }
    return tl;
  }

  static std::vector<Group> Groups(const Evaluator& ev, const std::vector<int>& options) {
    const OptionTree& tree = *ev.problem().tree;
    std::map<std::pair<double, int>, Group> groups;  // keyed deterministically by (size, option)
    for (int i = ev.tensors() - 1; i >= 0; --i) {
      const int cpu = CpuCounterpart(tree, options[i]);
      if (cpu < 0 || tree.options[options[i]].UsesCpu()) continue;
      Group& g = groups[{(*ev.problem().tensors)[i].elements, options[i]}];
      g.tensors.push_back(i);
      g.cpu_option = cpu;
    }
    std::vector<Group> out;
    for (auto& [key, g] : groups) out.push_back(std::move(g));
    return out;
  }

  // Algorithm 2.
  Result<Timeline> CpuStage(Evaluator& ev, std::vector<int>& options, Timeline tl) const {
    const std::vector<Group> groups = Groups(ev, options);
    long long combos = 1;
    for (const Group& g : groups) {
      combos *= static_cast<long long>(g.tensors.size()) + 1;
      if (combos > max_offload_)
        return Error::Infeasible("espresso: CPU offload enumeration exceeds " + std::to_string(max_offload_) +
                                 " combinations (" + std::to_string(groups.size()) + " groups)");
    }
    std::vector<size_t> q(groups.size(), 0);
    std::vector<int> best = options;
    while (true) {
      size_t k = 0;
      while (k < q.size() && ++q[k] > groups[k].tensors.size()) q[k++] = 0;
      if (k == q.size()) break;
      std::vector<int> trial = options;
      for (size_t g = 0; g < groups.size(); ++g)
        for (size_t j = 0; j < q[g]; ++j) trial[groups[g].tensors[j]] = groups[g].cpu_option;
      Timeline t = ev.Run(trial);
      if (t.iteration < tl.iteration) tl = std::move(t), best = trial;
    }
    options = best;
    return tl;
  }

  bool cpu_;
  long long max_offload_;
};

}  // namespace

std::unique_ptr<Selector> MakeEspressoSelector(bool cpu_offload, long long max_offload_combinations) {
  return std::make_unique<Espresso>(cpu_offload, max_offload_combinations);
}

}  // namespace dlsim::compress
