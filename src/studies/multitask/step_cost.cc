#include "dlsim/studies/multitask/step_cost.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "dlsim/net/collective.h"

namespace dlsim::multitask {
namespace {

constexpr double kGradBytes = 4.0;        // fp32 gradients (Megatron-LM's default with bf16)
constexpr double kWeightBytes = 2.0;      // bf16 weights
constexpr double kOptimizerBytes = 12.0;  // fp32 master weights + Adam's two moments

// Per module layer, per device: the smallest tensor-parallel size of a slice that ran it there (0: none).
using Holders = std::vector<std::vector<int>>;

Holders CollectHolders(const SchedulerInputs& in, const Schedule& s, std::vector<int>& first_layer_index) {
  const Workload& w = *in.workload;
  first_layer_index.assign(w.modules.size() + 1, 0);
  for (size_t m = 0; m < w.modules.size(); ++m)
    first_layer_index[m + 1] = first_layer_index[m] + w.modules[m].layers();
  Holders h(static_cast<size_t>(first_layer_index.back()),
            std::vector<int>(static_cast<size_t>(s.budget), 0));
  for (const Wave& wave : s.waves) {
    for (const Slice& sl : wave.slices) {
      const MetaOp& op = in.graph->ops[sl.op];
      for (int l = sl.first_layer; l < sl.first_layer + sl.layers; ++l) {
        const LayerRef& r = op.layers[l];
        std::vector<int>& row = h[first_layer_index[r.module] + r.layer];
        for (int d = sl.devices.begin; d < sl.devices.end(); ++d)
          row[d] = row[d] == 0 ? sl.config.tp : std::min(row[d], sl.config.tp);
      }
    }
  }
  return h;
}

// Activations per device: every slice's, all alive (or, task by task, the largest task's there).
std::vector<double> ActivationMemory(const SchedulerInputs& in, const Schedule& s) {
  const size_t tasks = in.workload->tasks.size();
  std::vector<std::vector<double>> act(tasks, std::vector<double>(static_cast<size_t>(s.budget), 0.0));
  for (const Wave& w : s.waves) {
    for (const Slice& sl : w.slices) {
      const double bytes = (*in.curves)[sl.op].at(sl.devices.count).saved.value() * sl.layers;
      for (int d = sl.devices.begin; d < sl.devices.end(); ++d) act[in.graph->ops[sl.op].task][d] += bytes;
    }
  }
  std::vector<double> memory(static_cast<size_t>(s.budget), 0.0);
  for (int d = 0; d < s.budget; ++d) {
    for (size_t t = 0; t < tasks; ++t)
      memory[d] = s.task_by_task ? std::max(memory[d], act[t][d]) : memory[d] + act[t][d];
  }
  return memory;
}

// Gradient buckets: parameters per (holders, smallest TP size); adds each holder's weights, gradients and
// optimizer share to `memory`.
std::map<std::pair<std::vector<bool>, int>, double> Buckets(const SchedulerInputs& in, const Schedule& s,
                                                            std::vector<double>& memory) {
  std::vector<int> first;
  const Holders holders = CollectHolders(in, s, first);
  std::map<std::pair<std::vector<bool>, int>, double> buckets;
  for (size_t m = 0; m + 1 < first.size(); ++m) {
    const double params = in.workload->modules[m].LayerParameters();
    for (int l = first[m]; l < first[m + 1]; ++l) {
      const std::vector<int>& row = holders[l];
      std::vector<bool> mask(row.size());
      int count = 0, tp = 0;
      for (size_t d = 0; d < row.size(); ++d) {
        if (row[d] == 0) continue;
        mask[d] = true;
        ++count;
        tp = tp == 0 ? row[d] : std::min(tp, row[d]);
      }
      if (count == 0) continue;
      for (size_t d = 0; d < row.size(); ++d) {
        if (row[d] > 0)
          memory[d] += params / row[d] * (kWeightBytes + kGradBytes) + params * kOptimizerBytes / count;
      }
      buckets[{mask, tp}] += params;
    }
  }
  return buckets;
}

// One all-reduce of a bucket's gradients / tp over |holders| / tp ranks (zero for a single rank).
Duration BucketSync(const train::StepContext& ctx, const std::vector<bool>& mask, int tp, double params) {
  const int n = static_cast<int>(mask.size()), g = std::max(1, ctx.gpus_per_node);
  int count = 0;
  std::vector<int> per_node((n + g - 1) / g, 0);
  for (int d = 0; d < n; ++d) {
    if (!mask[d]) continue;
    ++count;
    ++per_node[d / g];
  }
  const int ranks = std::max(1, count / tp);
  if (ranks <= 1) return Duration::Zero();
  const int nodes =
      static_cast<int>(std::count_if(per_node.begin(), per_node.end(), [](int x) { return x > 0; }));
  const int ranks_per_node = std::clamp(ranks / std::max(1, nodes), 1, ranks);
  return ctx.comm->Time(net::Collective::kAllReduce, Bytes(params * kGradBytes / tp), {ranks, ranks_per_node},
                        ctx.fabric);
}

}  // namespace

StepCost Evaluate(const SchedulerInputs& in, const Schedule& s) {
  StepCost c;
  const int n = s.budget;
  c.waves = static_cast<int>(s.waves.size());
  double busy = 0, flops = 0;
  for (const Wave& w : s.waves) {
    c.compute += w.fwd + w.bwd;
    c.transfer += w.transfer * int64_t{2};
    c.moved += w.moved * 2.0;
    for (const Slice& sl : w.slices) {
      busy += static_cast<double>(sl.devices.count) * (sl.fwd + sl.bwd).ToSeconds();
      flops += (*in.curves)[sl.op].model_flops.value() * sl.layers;
    }
  }
  std::vector<double> memory = ActivationMemory(in, s);
  for (const auto& [key, params] : Buckets(in, s, memory)) {
    if (!in.ctx) continue;
    const Duration t = BucketSync(*in.ctx, key.first, key.second, params);
    c.sync += t;
    if (t > Duration::Zero()) ++c.sync_buckets;
  }
  c.step = c.compute + c.transfer + c.sync;
  const double denom = static_cast<double>(n) * c.step.ToSeconds();
  c.busy = denom > 0 ? busy / denom : 0;
  if (in.ctx && in.ctx->gpu && denom > 0) {
    const double peak = in.ctx->gpu->Peak(in.precision).value();
    c.mfu = peak > 0 ? flops / (peak * denom) : 0;
  }
  const auto it = std::max_element(memory.begin(), memory.end());
  c.peak_memory = Bytes(*it);
  c.peak_device = static_cast<int>(it - memory.begin());
  if (in.ctx && in.ctx->gpu) {
    c.memory_limit = in.ctx->gpu->hbm_capacity - in.ctx->framework_overhead;
    c.fits = c.peak_memory <= c.memory_limit;
  }
  return c;
}

}  // namespace dlsim::multitask
