// flash-attention-gpt3: GPT-style models trained with FlashAttention-2's own training code on eight A100 SXM
// GPUs (held_out_sets.h; data/validation/flash_attention_gpt3.csv gives the source): the FlashAttention-2
// paper's Table 1. The stack as its
// configuration files give it: PyTorch Lightning with autocast over fp32 parameters, DDP with PyTorch's
// ZeroRedundancyOptimizer, FlashAttention-2 and the repository's fused dense, MLP and dropout-add-LayerNorm
// kernels, no recomputation. Open choices are named below and in the CSV.
#include <cmath>
#include <string>

#include "dlsim/core/csv.h"
#include "held_out_sets.h"

namespace dlsim::embedded {
std::string_view FlashAttentionGpt3Csv();
}  // namespace dlsim::embedded

namespace dlsim::validate::internal {
namespace {

using train::TrainOptions;

// GPT-2's 50,257 tokens padded to a multiple of 8 (gpt3s-flash.yaml: pad_vocab_size_multiple 8).
constexpr int kPaddedVocab = 50264;

// The row's GPT-2 style model: the catalog's GPT-3 block (LayerNorm, GELU, biases, tied embedding, learned
// positions, dropout 0.1) with the row's depth, width and heads.
model::ModelSpec RowModel(const CsvTable& t, size_t i, model::ModelSpec m) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  m.layers = num("layers");
  m.hidden = num("hidden");
  m.heads = m.kv_heads = num("heads");
  m.ffn_hidden = 4 * m.hidden;
  m.vocab = kPaddedVocab;
  m.max_seq_len = num("seq_len");  // n_positions = max_length: the position table
  return m;
}

TrainOptions FlashAttentionRow(const CsvTable& t, size_t i, const model::ModelSpec& m) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  TrainOptions o;
  o.model = RowModel(t, i, m);
  DgxA100(o, num("gpus"));
  o.hardware.gpu = *t.Text(i, "gpu");
  o.training.seq_len = num("seq_len");
  o.training.micro_batch = num("micro_batch");
  o.training.global_batch = num("global_batch");
  // Lightning's precision bf16: torch.autocast over fp32 parameters, fp32 gradients in .grad.
  o.training.precision = hw::ParseDType(*t.Text(i, "precision")).value_or(hw::DType::kBf16);
  o.training.recipe = train::Recipe::kAutocast;
  o.training.grad_dtype = hw::DType::kFp32;
  o.training.attention = model::AttentionImpl::kFlash;
  o.training.attention_backend =
      cost::AttentionBackend::kFlash2;          // flash_attn's own kernels (use_flash_attn)
  o.training.kernels = model::Kernels::kFused;  // fused_mlp, fused_bias_fc, fused_dropout_add_ln
  // DDP all-reduces the fp32 gradients in buckets during the last micro-batch's backward (Lightning skips
  // the sync on the others); ZeroRedundancyOptimizer steps each rank's shard and broadcasts it after the
  // step, not overlapped with the next forward.
  o.parallel.zero = 1;
  o.parallel.grad_reduce = train::GradReduce::kAllReduce;
  o.parallel.overlap_grad_reduce = true;
  o.parallel.overlap_param_gather = false;
  o.parallel.recompute = train::Recompute::kNone;  // no activation checkpointing
  return o;
}

}  // namespace

Result<ValidationSet> FlashAttentionGpt3(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::FlashAttentionGpt3Csv(), "flash_attention_gpt3.csv"));
  ValidationSet set{"flash-attention-gpt3", "step time (s)", Source(t), 0.0, {}};
  auto spec = run.catalogs.models.Find("gpt3-2.7b");
  if (!spec.ok()) return spec.error();
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const TrainOptions o = FlashAttentionRow(t, i, **spec);
    set.rows.push_back(Row(*t.Text(i, "source") + " " + *t.Text(i, "configuration"),
                           *t.Number(i, "derived_step_time_s"), o, run));
  }
  return set;
}

}  // namespace dlsim::validate::internal
