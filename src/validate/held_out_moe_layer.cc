// megatron-moe-layer-h100: one Megatron-Core MoELayer timed alone on eight H100s (held_out_sets.h;
// data/validation/megatron_moe_layer_h100.csv gives the source): forward and backward of the MoE block at
// forced-balanced routing against ChunkCostModel::MoeBlockCost on the row's scenario. A kernel-level check
// of the MoE pricing (router, permute, grouped expert GEMMs, the all-to-all) that no training constant is
// fitted to (bound_pct 0). The all-to-all and HybridEP dispatchers' rows are scored; dlsim has no DeepEP
// dispatcher (its rows stay in the CSV).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "dlsim/core/csv.h"
#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/parallel_plan.h"
#include "held_out_sets.h"

namespace dlsim::embedded {
std::string_view MegatronMoeLayerH100Csv();
}  // namespace dlsim::embedded

namespace dlsim::validate::internal {
namespace {

using train::TrainOptions;

// The row's proxy: one layer of the row's width whose FFN is the MoE block. The test's TransformerConfig
// keeps Megatron's defaults for what the case does not set: a GeLU MLP without a gated linear unit, no
// biases, eight attention heads (the MoELayer runs no attention).
model::ModelSpec ProxyModel(const CsvTable& t, size_t i) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  model::ModelSpec m;
  m.name = *t.Text(i, "model");
  m.layers = 1;
  m.hidden = num("hidden");
  m.heads = m.kv_heads = 8;
  m.ffn_hidden = num("expert_ffn_hidden");
  m.vocab = 32000;
  m.gated_mlp = false;
  m.linear_bias = false;
  m.moe.experts = num("experts");
  m.moe.top_k = num("top_k");
  m.moe.expert_ffn_hidden = num("expert_ffn_hidden");
  m.moe.shared_experts = num("shared_expert_ffn") / m.moe.expert_ffn_hidden;
  m.max_seq_len = num("seq_len");
  return m;
}

// Eight H100s of one DGX H100 (Megatron-LM's test runs one node: torch.distributed.run --nproc_per_node 8),
// EP 8 over the data-parallel ranks, bf16 parameters, TE's fused kernels.
TrainOptions ProxyScenario(const CsvTable& t, size_t i) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  TrainOptions o;
  o.model = ProxyModel(t, i);
  DgxH100(o);
  o.hardware.gpus = 8;
  o.training.seq_len = num("seq_len");
  o.training.micro_batch = num("micro_batch");
  o.training.global_batch = 8 * o.training.micro_batch;
  o.training.precision = *t.Text(i, "precision") == "fp8" ? hw::DType::kFp8 : hw::DType::kBf16;
  o.training.attention = model::AttentionImpl::kFlash;
  o.parallel.ep = num("ep");
  o.parallel.etp = 1;
  o.parallel.recompute = train::Recompute::kNone;
  o.parallel.moe_dispatcher =
      NamedIn(train::kMoeDispatcherNames, *t.Text(i, "dispatcher"), train::MoeDispatcher::kAllToAll);
  return o;
}

// The MoE block's forward and backward costs on one GPU; an error when the scenario does not resolve.
Result<train::ChunkCostModel::LayerCost> PriceBlock(const TrainOptions& o,
                                                    const catalog::Catalogs& catalogs) {
  DLSIM_ASSIGN_OR_RETURN(auto owned, train::MakeStepContext(o, catalogs));
  DLSIM_ASSIGN_OR_RETURN(train::ParallelPlan plan, train::MakeParallelPlan(o));
  return train::ChunkCostModel(o, plan, owned->ctx).MoeBlockCost();
}

// A pass's row, its note the priced parts: GEMMs, memory-bound kernels, the exposed all-to-all (ms).
ValidationRow BlockRow(std::string label, double measured_ms, const train::TaskCost& pass) {
  auto ms = [](Duration d) { return fmt::format("{:.2f}", d.ToSeconds() * 1e3); };
  ValidationRow row;
  row.label = std::move(label);
  row.measured = measured_ms;
  row.predicted = pass.Total().ToSeconds() * 1e3;
  row.note = "GEMMs " + ms(pass.mix.gemm) + ", memory-bound " + ms(pass.mix.memory) + ", all-to-all " +
             ms(pass.ep_comm) +
             (pass.mix.host_wait > Duration::Zero() ? ", host wait " + ms(pass.mix.host_wait) : "");
  return row;
}

ValidationRow InfeasibleRow(std::string label, double measured_ms, const std::string& why) {
  ValidationRow row;
  row.label = std::move(label);
  row.measured = measured_ms;
  row.feasible = false;
  row.note = why;
  return row;
}

}  // namespace

Result<ValidationSet> MegatronMoeLayerH100(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t,
                         ParseCsv(embedded::MegatronMoeLayerH100Csv(), "megatron_moe_layer_h100.csv"));
  ValidationSet set{"megatron-moe-layer-h100", "MoE layer time (ms)", Source(t), 0.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    if (*t.Text(i, "dispatcher") == "deepep") continue;
    const Result<train::ChunkCostModel::LayerCost> block = PriceBlock(ProxyScenario(t, i), run.catalogs);
    const std::string label =
        *t.Text(i, "model") + " " + *t.Text(i, "dispatcher") + " " + *t.Text(i, "precision");
    const double fwd = *t.Number(i, "forward_ms"), bwd = *t.Number(i, "backward_ms");
    if (!block.ok()) {
      set.rows.push_back(InfeasibleRow(label + " forward", fwd, block.error().message));
      set.rows.push_back(InfeasibleRow(label + " backward", bwd, block.error().message));
      continue;
    }
    set.rows.push_back(BlockRow(label + " forward", fwd, block->fwd));
    set.rows.push_back(BlockRow(label + " backward", bwd, block->bwd));
  }
  return set;
}

}  // namespace dlsim::validate::internal
