// The published memory sets (held_out_sets.h): peak memory per GPU of real runs, each row simulated as its
// source configured it and compared with the rank its figure comes from. Choices the sources leave open are
// named here and in docs/validation.md ("Peak memory of real runs"); nothing is fitted to these rows.
#include <algorithm>
#include <cmath>

#include "dlsim/core/csv.h"
#include "held_out_sets.h"

namespace dlsim::embedded {
std::string_view MegatronLmFunctionalMemoryCsv();
std::string_view PytorchBf16MemoryCsv();
std::string_view TorchtitanH100NdCsv();
}  // namespace dlsim::embedded

namespace dlsim::validate::internal {
namespace {

using train::Recompute;
using train::TrainOptions;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The scenario every row shares: the decoder of its shape columns (layers, hidden, heads, kv_heads,
// ffn_hidden, vocab; the model named `name`) on its GPUs (gpu, gpus; DGX A100-like nodes) with its batch
// (seq_len, micro_batch, global_batch), no recomputation.
TrainOptions RowScenario(const CsvTable& t, size_t i, std::string name) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  TrainOptions o;
  model::ModelSpec& m = o.model;
  m.name = std::move(name);
  m.layers = num("layers");
  m.hidden = num("hidden");
  m.heads = num("heads");
  m.kv_heads = num("kv_heads");
  m.ffn_hidden = num("ffn_hidden");
  m.vocab = num("vocab");
  m.max_seq_len = num("seq_len");
  DgxA100(o, num("gpus"));
  o.hardware.gpu = *t.Text(i, "gpu");
  o.training.seq_len = num("seq_len");
  o.training.global_batch = num("global_batch");
  o.training.micro_batch = num("micro_batch");
  o.parallel.recompute = Recompute::kNone;
  return o;
}

// The row: predicted is the simulated memory (GiB) of the last pipeline rank (`last_rank`: the rank Megatron
// logs) or of the largest; an infeasible row keeps the reason (Row's).
ValidationRow MemoryRow(std::string label, double measured_gib, const Result<train::StepResult>& r,
                        bool last_rank) {
  ValidationRow row = Row(std::move(label), measured_gib, r);
  row.predicted = 0;
  if (!r.ok() || r->memory.empty()) return row;
  const size_t at = last_rank ? r->memory.size() - 1 : static_cast<size_t>(r->peak_rank);
  row.predicted = r->memory[std::min(at, r->memory.size() - 1)].Total().ToGiB();
  return row;
}

// A Megatron-LM functional test's scenario: the GPT of its model_config.yaml with Megatron's defaults (4h
// GELU MLP, LayerNorm, learned positions, biases, dropout 0.1, untied), bf16 with fp32 gradients, Transformer
// Engine's fused attention, the distributed optimizer, no recomputation, interleaving when vp_stages > 1.
TrainOptions MegatronTestRow(const CsvTable& t, size_t i) {
  TrainOptions o = RowScenario(t, i, *t.Text(i, "test"));
  o.model.linear_bias = true;
  o.model.position_embedding = model::PositionEmbedding::kLearned;
  o.model.dropout = 0.1;
  o.hardware.node = *t.Text(i, "node");
  o.training.grad_dtype = hw::DType::kFp32;
  o.parallel.tp = static_cast<int>(std::lround(*t.Number(i, "tp")));
  o.parallel.pp = static_cast<int>(std::lround(*t.Number(i, "pp")));
  o.parallel.virtual_stages = static_cast<int>(std::lround(*t.Number(i, "vp_stages")));
  if (o.parallel.virtual_stages > 1) o.parallel.pipeline_schedule = train::PipelineScheduleKind::kInterleaved;
  o.parallel.zero = 1;
  return o;
}

// A plain-PyTorch bf16 run (pytorch_bf16_memory.csv): Llama-shaped decoder, the bf16 recipe with eager
// kernels and PyTorch's SDPA, as the pytorch-eager-bf16 stack sets them; DDP (zero 0) or FSDP (zero 3).
TrainOptions PytorchBf16Row(const CsvTable& t, size_t i) {
  TrainOptions o = RowScenario(t, i, *t.Text(i, "label"));
  o.model.gated_mlp = true;
  o.model.norm = model::Norm::kRmsNorm;
  o.model.tied_embeddings = *t.Text(i, "tied") == "true";
  o.training.recipe = train::Recipe::kBf16;
  o.training.grad_dtype = hw::DType::kBf16;
  o.training.kernels = model::Kernels::kEager;
  o.training.norm_impl =
      *t.Text(i, "norm_impl") == "python-fp32" ? model::NormImpl::kPythonFp32 : model::NormImpl::kFused;
  o.training.attention_backend = cost::AttentionBackend::kPytorchDefault;
  o.parallel.zero = static_cast<int>(std::lround(*t.Number(i, "zero")));
  return o;
}

}  // namespace

Result<ValidationSet> MegatronLmMemory(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(
      CsvTable t, ParseCsv(embedded::MegatronLmFunctionalMemoryCsv(), "megatron_lm_functional_memory.csv"));
  ValidationSet set{"megatron-lm-memory", "peak allocated memory, last rank (GiB)", Source(t), 10.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const TrainOptions o = MegatronTestRow(t, i);
    set.rows.push_back(MemoryRow(*t.Text(i, "test") + " " + o.hardware.gpu,
                                 *t.Number(i, "peak_allocated_bytes") / kGiB, run.Run(o),
                                 /*last_rank=*/true));
  }
  return set;
}

Result<ValidationSet> PytorchBf16Memory(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::PytorchBf16MemoryCsv(), "pytorch_bf16_memory.csv"));
  ValidationSet set{"pytorch-bf16-memory", "peak allocated memory (GiB)", Source(t), 0.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i)
    set.rows.push_back(MemoryRow(*t.Text(i, "source") + " " + *t.Text(i, "label"),
                                 *t.Number(i, "measured_gib"), run.Run(PytorchBf16Row(t, i)),
                                 /*last_rank=*/false));
  return set;
}

// torchtitan's H100 rows (torchtitan_h100_nd.csv, the scenarios of the step-time set): its logged "memory" is
// torch.cuda's peak reserved bytes (torchtitan train.py / metrics.py at the benchmark's date:
// max_reserved_gib), the maximum over GPUs, so each row is scored on the simulated peak reserved of the
// largest rank (peak allocated x the measured allocator ratio for the recomputation mode).
Result<ValidationSet> TorchtitanH100Memory(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::TorchtitanH100NdCsv(), "torchtitan_h100_nd.csv"));
  ValidationSet set{
      "torchtitan-h100-nd-memory", "peak reserved memory, largest rank (GiB)", Source(t), 0.0, {}};
  DLSIM_ASSIGN_OR_RETURN(std::vector<LabelledScenario> rows, TorchtitanH100Scenarios(run, t));
  for (size_t i = 0; i < rows.size(); ++i) {
    const Result<train::StepResult> r = run.Run(rows[i].options);
    ValidationRow row = Row(rows[i].label, *t.Number(i, "memory_gib"), r);
    row.predicted = r.ok() ? r->peak_reserved.ToGiB() : 0;
    set.rows.push_back(std::move(row));
  }
  return set;
}

}  // namespace dlsim::validate::internal
