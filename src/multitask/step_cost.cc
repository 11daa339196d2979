#include "dlsim/multitask/step_cost.h"

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

}  // namespace

StepCost Evaluate(const SchedulerInputs& in, const Schedule& s) {
  StepCost c;
  const int n = s.budget;
  c.waves = static_cast<int>(s.waves.size());
  double busy = 0, flops = 0;
  // Activations per task and device.
  const size_t tasks = in.workload->tasks.size();
  std::vector<std::vector<double>> act(tasks, std::vector<double>(static_cast<size_t>(n), 0.0));
  for (const Wave& w : s.waves) {
    c.compute += w.fwd + w.bwd;
    c.transfer += w.transfer * int64_t{2};
    c.moved += w.moved * 2.0;
    for (const Slice& sl : w.slices) {
      const ScalingCurve& curve = (*in.curves)[sl.op];
      busy += static_cast<double>(sl.devices.count) * (sl.fwd + sl.bwd).ToSeconds();
      flops += curve.model_flops.value() * sl.layers;
      const double bytes = curve.at(sl.devices.count).saved.value() * sl.layers;
      for (int d = sl.devices.begin; d < sl.devices.end(); ++d) act[in.graph->ops[sl.op].task][d] += bytes;
    }
  }
  std::vector<double> memory(static_cast<size_t>(n), 0.0);
  for (int d = 0; d < n; ++d) {
    for (size_t t = 0; t < tasks; ++t)
      memory[d] = s.task_by_task ? std::max(memory[d], act[t][d]) : memory[d] + act[t][d];
  }
  // Parameter synchronisation and parameter memory, from who holds each module layer.
  std::vector<int> first;
  const Holders holders = CollectHolders(in, s, first);
  std::map<std::pair<std::vector<bool>, int>, double> buckets;  // (holders, smallest tp) -> parameters
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
  if (in.ctx) {
    const int g = std::max(1, in.ctx->gpus_per_node);
    for (const auto& [key, params] : buckets) {
      const auto& [mask, tp] = key;
      int count = 0;
      std::vector<int> per_node((n + g - 1) / g, 0);
      for (int d = 0; d < n; ++d) {
        if (!mask[d]) continue;
        ++count;
        ++per_node[d / g];
      }
      const int ranks = std::max(1, count / tp);
      if (ranks <= 1) continue;
      const int nodes =
          static_cast<int>(std::count_if(per_node.begin(), per_node.end(), [](int x) { return x > 0; }));
      const int ranks_per_node = std::clamp(ranks / std::max(1, nodes), 1, ranks);
      c.sync += in.ctx->comm->Time(net::Collective::kAllReduce, Bytes(params * kGradBytes / tp),
                                   {ranks, ranks_per_node}, in.ctx->fabric);
      ++c.sync_buckets;
    }
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
