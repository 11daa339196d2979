// The validation sets: published rows -> training scenarios. Every choice a table leaves
// open is a named constant here and is explained in docs/validation.md.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>

#include "dlsim/core/csv.h"
#include "dlsim/train/simulate.h"
#include "dlsim/train/step_model.h"
#include "dlsim/validate/validation.h"

namespace dlsim::embedded {
std::string_view Megatron2021Table1Csv();
std::string_view Korthikanti2022Table5Csv();
std::string_view Korthikanti2022MemoryCsv();
std::string_view VtrainSingleNodeCsv();
std::string_view Nemo2407H100Csv();
std::string_view MegatronBridgeMoeB200Csv();
std::string_view NemoLongContextCpCsv();
std::string_view TorchtitanA100FsdpCsv();
std::string_view MegatronBridgeDenseB200Csv();
}  // namespace dlsim::embedded

namespace dlsim::validate {
namespace {

using train::PipelineScheduleKind;
using train::Recompute;
using train::TrainOptions;

// Megatron-LM GPT of the 2021-2022 papers: 4h MLP with GeLU, dropout 0.1, tied embeddings,
// vocabulary padded to 51200.
model::ModelSpec MegatronGpt(int heads, int hidden, int layers, int ffn, int vocab) {
  model::ModelSpec m;
  m.name = "gpt-" + std::to_string(layers) + "x" + std::to_string(hidden);
  m.heads = heads;
  m.kv_heads = heads;
  m.hidden = hidden;
  m.layers = layers;
  m.ffn_hidden = ffn;
  m.vocab = vocab;
  m.dropout = 0.1;
  m.tied_embeddings = true;
  m.attention_bias = true;
  return m;
}

// A DGX A100 (Selene, vTrain's node): 8 x A100 80GB, NVSwitch, 8 x HDR 200 Gb/s.
void DgxA100(TrainOptions& o, int gpus) {
  o.hardware.gpu = "a100-sxm4-80gb";
  o.hardware.node = "dgx-a100";
  o.hardware.gpus = gpus;
  o.hardware.gpus_per_node = 8;
  o.hardware.nics_per_node = 8;
  o.hardware.nic_gbps = 200;
  o.hardware.network = "ib-hdr";
}

// Megatron-LM of 2021-2022: unfused core attention, no distributed optimizer, gradient
// reduction after the last backward. Narayanan et al. 2021 train in fp16 (fp16 gradients,
// Megatron-LM's default); Korthikanti et al. 2022 keep fp32 gradients (their Figure 1 counts
// 18 bytes per parameter), i.e. bf16 training.
void Megatron2021Training(TrainOptions& o, hw::DType precision) {
  o.training.precision = precision;
  o.training.attention = model::AttentionImpl::kUnfused;
  o.parallel.zero = 0;
  o.parallel.overlap_grad_reduce = false;
  o.parallel.overlap_param_gather = false;
}

struct Runner {
  const catalog::Catalogs& catalogs;
  Result<train::StepResult> Run(const TrainOptions& o) const { return train::Simulate(o, catalogs, nullptr); }
};

ValidationRow Row(std::string label, double measured, const Result<train::StepResult>& r) {
  ValidationRow row;
  row.label = std::move(label);
  row.measured = measured;
  if (!r.ok()) {
    row.feasible = false;
    row.note = r.error().message;
    return row;
  }
  row.predicted = r->step_time_s;
  row.feasible = r->feasible;
  if (!r->feasible) row.note = r->reason;
  return row;
}

std::string Source(const CsvTable& t) { return t.comments.empty() ? t.file_name : t.comments[0]; }

// Megatron-LM 2021 Table 1 (weak scaling, full recomputation, A100).
// Open choices: micro-batch 1 and the 1F1B schedule for pipelined rows (the paper's
// default PTD-P setting); data-parallel-only rows use micro-batch kMegatronDpMicroBatch.
constexpr int kMegatronDpMicroBatch = 4;
Result<ValidationSet> Megatron2021(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::Megatron2021Table1Csv(), "megatron_2021_table1.csv"));
  ValidationSet set{"megatron-2021-table1", "step time (s)", Source(t), 5.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
    TrainOptions o;
    o.model = MegatronGpt(num("heads"), num("hidden"), num("layers"), 4 * num("hidden"), num("vocab"));
    DgxA100(o, num("gpus"));
    Megatron2021Training(o, hw::DType::kFp16);
    o.training.seq_len = num("seq_len");
    o.training.global_batch = num("global_batch");
    o.parallel.tp = num("tp");
    o.parallel.pp = num("pp");
    o.parallel.recompute = Recompute::kFull;
    o.training.micro_batch = o.parallel.pp > 1 ? 1 : kMegatronDpMicroBatch;
    o.parallel.pipeline_schedule = PipelineScheduleKind::kOneFOneB;
    set.rows.push_back(Row(*t.Text(i, "params_b") + "B", *t.Number(i, "derived_step_time_s"), run.Run(o)));
  }
  return set;
}

// One row of Korthikanti et al. 2022 Table 5 (A100 80GB, seq 2048, vocab 51200, DP 1).
TrainOptions KorthikantiRow(const CsvTable& t, size_t i) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  TrainOptions o;
  o.model = MegatronGpt(num("heads"), num("hidden"), num("layers"), num("ffn_hidden"), 51200);
  DgxA100(o, num("gpus"));
  Megatron2021Training(o, hw::DType::kBf16);
  o.training.seq_len = 2048;
  o.training.global_batch = num("global_batch");
  o.training.micro_batch = num("micro_batch");
  o.parallel.tp = num("tp");
  o.parallel.pp = num("pp");
  const int v = num("interleave");
  o.parallel.virtual_stages = v;
  o.parallel.pipeline_schedule = v > 1 ? PipelineScheduleKind::kInterleaved : PipelineScheduleKind::kOneFOneB;
  return o;
}

// Korthikanti et al. 2022 Table 5: full recomputation vs sequence parallelism + selective.
Result<std::vector<ValidationSet>> Korthikanti2022(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t,
                         ParseCsv(embedded::Korthikanti2022Table5Csv(), "korthikanti_2022_table5.csv"));
  ValidationSet full{"korthikanti-2022-full", "step time (s)", Source(t), 5.0, {}};
  ValidationSet seqsel{"korthikanti-2022-seq-sel", "step time (s)", Source(t), 5.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    TrainOptions o = KorthikantiRow(t, i);
    const std::string label = *t.Text(i, "model");
    o.parallel.recompute = Recompute::kFull;
    full.rows.push_back(Row(label, *t.Number(i, "time_full_s"), run.Run(o)));
    o.parallel.recompute = Recompute::kSelective;
    o.parallel.sequence_parallel = true;
    seqsel.rows.push_back(Row(label, *t.Number(i, "time_seq_sel_s"), run.Run(o)));
  }
  return std::vector<ValidationSet>{full, seqsel};
}

// Korthikanti et al. 2022 Figure 1: memory per GPU of the Table 5 configurations (GiB).
Result<ValidationSet> Korthikanti2022Memory(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t5,
                         ParseCsv(embedded::Korthikanti2022Table5Csv(), "korthikanti_2022_table5.csv"));
  DLSIM_ASSIGN_OR_RETURN(CsvTable t,
                         ParseCsv(embedded::Korthikanti2022MemoryCsv(), "korthikanti_2022_memory.csv"));
  ValidationSet set{"korthikanti-2022-memory", "memory (GiB)", Source(t), 10.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string label = *t.Text(i, "model");
    size_t j = 0;
    while (j < t5.rows.size() && *t5.Text(j, "model") != label) ++j;
    if (j == t5.rows.size())
      return Error::Parse("korthikanti_2022_memory.csv: model " + label + " not in Table 5");
    TrainOptions o = KorthikantiRow(t5, j);
    o.parallel.recompute = Recompute::kNone;
    auto none = run.Run(o);
    o.parallel.recompute = Recompute::kSelective;
    o.parallel.sequence_parallel = true;
    auto seqsel = run.Run(o);
    if (!none.ok()) return none.error();
    if (!seqsel.ok()) return seqsel.error();
    const auto& mn = none->memory[0];
    const auto& ms = seqsel->memory[0];
    auto add = [&](const char* what, double measured, double predicted) {
      ValidationRow row;
      row.label = label + " " + what;
      row.measured = measured;
      row.predicted = predicted;
      set.rows.push_back(row);
    };
    add("params+grads+optimizer", *t.Number(i, "params_grads_optimizer_gib"),
        (mn.weights + mn.gradients + mn.optimizer).ToGiB());
    add("activations (none)", *t.Number(i, "activations_none_gib"), mn.activations.ToGiB());
    add("activations (seq+sel)", *t.Number(i, "activations_seq_sel_gib"), ms.activations.ToGiB());
  }
  return set;
}

// vTrain single-node ground truth (Megatron-DeepSpeed, 1F1B, activation checkpointing).
// Open choices: GPT-2 vocabulary padded to 50304; A100 80GB DGX node.
constexpr int kVtrainVocab = 50304;
Result<ValidationSet> Vtrain(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t,
                         ParseCsv(embedded::VtrainSingleNodeCsv(), "vtrain_single_node_calibration.csv"));
  ValidationSet set{"vtrain-single-node", "step time (s)", Source(t), 8.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
    TrainOptions o;
    const int h = num("hidden_size");
    o.model = MegatronGpt(num("attention_heads"), h, num("layers"), 4 * h, kVtrainVocab);
    DgxA100(o, num("GPUs"));
    Megatron2021Training(o, hw::DType::kFp16);
    o.training.seq_len = num("sequence_length");
    o.training.global_batch = num("global_batch");
    o.training.micro_batch = num("micro_batch");
    o.parallel.tp = num("tensor_parallelism");
    o.parallel.pp = num("pipeline_parallelism");
    o.parallel.dp = num("data_parallelism");
    o.parallel.recompute = Recompute::kFull;
    const std::string label = "g" + std::to_string(o.hardware.gpus) + " h" + std::to_string(h) + " l" +
                              std::to_string(o.model.layers) + " b" +
                              std::to_string(o.training.global_batch) + "/" +
                              std::to_string(o.training.micro_batch) + " tp" + std::to_string(o.parallel.tp) +
                              " dp" + std::to_string(o.parallel.dp) + " pp" + std::to_string(o.parallel.pp);
    set.rows.push_back(Row(label, *t.Number(i, "iteration_time_ms") * 1e-3, run.Run(o)));
  }
  return set;
}

// Our catalog name of a model as the NeMo table names it (the table's name when they agree).
std::string NemoCatalogName(const std::string& label) {
  const std::pair<const char*, const char*> names[] = {
      {"GPT3-5B", "nemo-gpt3-5b"},    {"GPT3-20B", "nemo-gpt3-20b"},    {"GPT3-175B", "gpt3-175b"},
      {"LLAMA2-7B", "llama2-7b"},     {"LLAMA2-13B", "llama2-13b"},     {"LLAMA2-70B", "llama2-70b"},
      {"Nemotron-8B", "nemotron-8b"}, {"Nemotron-22B", "nemotron-22b"}, {"Nemotron-340B", "nemotron-340b"},
      {"LLAMA3-8B", "llama3-8b"},     {"LLAMA3-70B", "llama3-70b"}};
  std::string catalog_name;
  for (const auto& [published, ours] : names)
    if (label == published) catalog_name = ours;
  return catalog_name.empty() ? label : catalog_name;
}

// Sets the DGX H100 nodes and NeMo's FP8 recipe: flash attention, distributed optimizer, no recomputation,
// bf16 gradient reduction.
void NemoH100Recipe(TrainOptions& o) {
  o.hardware.gpu = "h100-sxm5-80gb";
  o.hardware.node = "dgx-h100";
  o.hardware.gpus_per_node = 8;
  o.hardware.nics_per_node = 8;
  o.hardware.nic_gbps = 400;
  o.hardware.network = "ib-ndr";
  o.training.precision = hw::DType::kFp8;
  o.training.attention = model::AttentionImpl::kFlash;
  o.parallel.zero = 1;
  o.parallel.recompute = Recompute::kNone;
  // Megatron-core's distributed optimizer reduces gradients in bf16 unless
  // grad_reduce_in_fp32 is set (NeMo's default is unset).
  o.training.grad_dtype = hw::DType::kBf16;
}

// Moves a NeMo H100 scenario to DGX B200 nodes (8 GPUs and 8 x 400 Gb/s NICs, as DGX H100).
void DgxB200(TrainOptions& o) {
  o.hardware.gpu = "b200-sxm-180gb";
  o.hardware.node = "dgx-b200";
}

// The scenario of row `i` of a NeMo table for model `m` with the given micro-batch and virtual pipeline
// stages: its GPUs, batch and layout, with sequence parallelism and TP communication overlap whenever tp > 1.
TrainOptions NemoRowWith(const CsvTable& t, size_t i, const model::ModelSpec& m, int micro_batch, int vp) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  TrainOptions o;
  o.model = m;
  NemoH100Recipe(o);
  o.hardware.gpus = num("gpus");
  o.training.seq_len = num("seq_len");
  o.training.global_batch = num("global_batch");
  o.training.micro_batch = micro_batch;
  o.parallel.tp = num("tp");
  o.parallel.pp = num("pp");
  o.parallel.cp = num("cp");
  o.parallel.virtual_stages = vp;
  o.parallel.pipeline_schedule =
      vp > 1 ? PipelineScheduleKind::kInterleaved : PipelineScheduleKind::kOneFOneB;
  o.parallel.sequence_parallel = o.parallel.tp > 1;
  o.parallel.tp_comm_overlap = o.parallel.tp > 1;
  return o;
}

// The scenario of row `i` of the NeMo table for model `m`, with the table's micro-batch and vp.
TrainOptions NemoRow(const CsvTable& t, size_t i, const model::ModelSpec& m) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  return NemoRowWith(t, i, m, num("micro_batch"), num("vp"));
}

// The measured step time of a row that publishes tokens/s per GPU: global batch x seq / (tokens/s/GPU x
// GPUs).
double StepFromTokensPerGpu(const CsvTable& t, size_t i, const TrainOptions& o) {
  const double tokens = static_cast<double>(o.training.global_batch) * o.training.seq_len;
  return tokens / (*t.Number(i, "tokens_per_s_per_gpu") * o.hardware.gpus);
}

// NeMo 24.07 pre-training on DGX H100 with FP8 (Transformer Engine): flash attention,
// distributed optimizer, sequence parallelism with TP, TP communication overlap, no
// recomputation (NeMo's performance recipes).
Result<ValidationSet> Nemo(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::Nemo2407H100Csv(), "nemo_24_07_h100.csv"));
  ValidationSet set{"nemo-24.07-h100-fp8", "step time (s)", Source(t), 10.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string label = *t.Text(i, "model");
    auto spec = run.catalogs.models.Find(NemoCatalogName(label));
    if (!spec.ok()) return spec.error();
    const TrainOptions o = NemoRow(t, i, **spec);
    const double measured = StepFromTokensPerGpu(t, i, o);
    set.rows.push_back(Row(label + " " + std::to_string(o.hardware.gpus) + "gpu", measured, run.Run(o)));
  }
  return set;
}

// Megatron-Bridge's MoE rows on DGX B200 (MXFP8 as fp8): NeMo's recipe (flash attention, distributed
// optimizer, bf16 gradient reduction, no recomputation) with expert parallelism, expert-TP 1, balanced
// dropless routing as the pages state. A held-out check: no constant is fitted to it (not in the fitting
// program's sets), and bound_pct is 0 (informational).
Result<ValidationSet> MegatronBridgeMoe(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t,
                         ParseCsv(embedded::MegatronBridgeMoeB200Csv(), "megatron_bridge_moe_b200.csv"));
  ValidationSet set{"megatron-bridge-moe-b200", "step time (s)", Source(t), 0.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string label = *t.Text(i, "model");
    auto spec = run.catalogs.models.Find(label == "DeepSeekV3" ? "deepseek-v3" : "qwen3-30b-a3b");
    if (!spec.ok()) return spec.error();
    TrainOptions o = NemoRow(t, i, **spec);
    DgxB200(o);
    o.parallel.ep = static_cast<int>(std::lround(*t.Number(i, "ep")));
    o.parallel.etp = 1;
    const double measured = StepFromTokensPerGpu(t, i, o);
    set.rows.push_back(
        Row(label + " " + *t.Text(i, "container") + " " + std::to_string(o.hardware.gpus) + "gpu", measured,
            run.Run(o)));
  }
  return set;
}

// Megatron-Bridge's dense Llama rows on DGX B200 (25.09 and 25.11; FP8-CS and MXFP8 both as fp8): NeMo's
// recipe as for the 24.07 table (distributed optimizer, no recomputation, SP and TP overlap with TP) with the
// rows' layouts; the page does not give the recipe's recomputation. Held out: not fitted on, bound_pct 0.
Result<ValidationSet> MegatronBridgeDense(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t,
                         ParseCsv(embedded::MegatronBridgeDenseB200Csv(), "megatron_bridge_dense_b200.csv"));
  ValidationSet set{"megatron-bridge-dense-b200", "step time (s)", Source(t), 0.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string label = *t.Text(i, "model");
    auto spec = run.catalogs.models.Find(label == "LLAMA3_8B" ? "llama3-8b" : "llama3.1-405b");
    if (!spec.ok()) return spec.error();
    TrainOptions o = NemoRow(t, i, **spec);
    DgxB200(o);
    const double measured = StepFromTokensPerGpu(t, i, o);
    set.rows.push_back(Row(label + " " + *t.Text(i, "container") + " " + *t.Text(i, "precision") + " " +
                               std::to_string(o.hardware.gpus) + "gpu",
                           measured, run.Run(o)));
  }
  return set;
}

// NeMo's long-sequence runs with context parallelism (LLAMA2-7B on DGX H100, LLAMA3-8B on DGX B200, FP8):
// NeMo's recipe as for the 24.07 table with the rows' tp/pp/cp/dp. Open choices (the page does not give
// them): micro-batch kNemoLongContextMicroBatch, no virtual pipeline stages, no recomputation (NeMo's
// performance recipes). Held out: not fitted on, bound_pct 0.
constexpr int kNemoLongContextMicroBatch = 1;
Result<ValidationSet> NemoLongContext(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::NemoLongContextCpCsv(), "nemo_long_context_cp.csv"));
  ValidationSet set{"nemo-long-context-cp", "step time (s)", Source(t), 0.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string label = *t.Text(i, "model");
    auto spec = run.catalogs.models.Find(label == "LLAMA2-7B" ? "llama2-7b" : "llama3-8b");
    if (!spec.ok()) return spec.error();
    TrainOptions o = NemoRowWith(t, i, **spec, kNemoLongContextMicroBatch, 1);
    if (*t.Text(i, "system") == "DGX-B200") DgxB200(o);
    o.parallel.dp = static_cast<int>(std::lround(*t.Number(i, "dp")));
    const int seq_k = o.training.seq_len / 1024;
    set.rows.push_back(Row(label + " " + std::to_string(seq_k) + "K cp" + std::to_string(o.parallel.cp) +
                               " " + std::to_string(o.hardware.gpus) + "gpu",
                           *t.Number(i, "derived_step_time_s"), run.Run(o)));
  }
  return set;
}

// torchtitan's FSDP2 runs on 64 A100 80GB (Llama 2 13B/70B, Llama 3 70B): ZeRO-3 over all 64 GPUs, one
// micro-batch of the local batch, flash attention (PyTorch SDPA), the rows' recomputation ("no" or "full").
// Open choices (the page does not give them): bf16 with fp32 gradient reduction (torchtitan's default mixed
// precision) and DGX A100 nodes with 8 HDR NICs. Held out: not fitted on, bound_pct 0.
Result<ValidationSet> TorchtitanFsdp(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::TorchtitanA100FsdpCsv(), "torchtitan_a100_fsdp.csv"));
  ValidationSet set{"torchtitan-a100-fsdp", "step time (s)", Source(t), 0.0, {}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
    const std::string label = *t.Text(i, "model");
    std::string name = label;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    auto spec = run.catalogs.models.Find(name);
    if (!spec.ok()) return spec.error();
    TrainOptions o;
    o.model = **spec;
    DgxA100(o, num("gpus"));
    o.training.precision = hw::DType::kBf16;
    o.training.grad_dtype = hw::DType::kFp32;
    o.training.attention = model::AttentionImpl::kFlash;
    o.training.seq_len = num("seq_len");
    o.training.micro_batch = num("local_batch");
    o.training.global_batch = o.training.micro_batch * o.hardware.gpus;
    o.parallel.zero = 3;
    o.parallel.recompute =
        *t.Text(i, "activation_checkpointing") == "full" ? Recompute::kFull : Recompute::kNone;
    set.rows.push_back(Row(label + " ac " + *t.Text(i, "activation_checkpointing"),
                           *t.Number(i, "derived_step_time_s"), run.Run(o)));
  }
  return set;
}

}  // namespace

double ValidationSet::Mape() const {
  if (rows.empty()) return 0;
  double s = 0;
  for (const auto& r : rows) s += std::fabs(r.ErrorPct());
  return s / static_cast<double>(rows.size());
}

double ValidationSet::MaxAbsErrorPct() const {
  double m = 0;
  for (const auto& r : rows) m = std::max(m, std::fabs(r.ErrorPct()));
  return m;
}

namespace {

// The single-table sets after Korthikanti's, in their fixed order.
using SetBuilder = Result<ValidationSet> (*)(Runner&);
constexpr std::pair<const char*, SetBuilder> kLaterSets[] = {
    {"korthikanti-2022-memory", Korthikanti2022Memory},
    {"vtrain-single-node", Vtrain},
    {"nemo-24.07-h100-fp8", Nemo},
    {"megatron-bridge-moe-b200", MegatronBridgeMoe},
    {"megatron-bridge-dense-b200", MegatronBridgeDense},
    {"nemo-long-context-cp", NemoLongContext},
    {"torchtitan-a100-fsdp", TorchtitanFsdp}};

// The sets for which `want(name)` holds, in a fixed order.
Result<std::vector<ValidationSet>> RunWanted(const catalog::Catalogs& catalogs,
                                             const std::function<bool(const std::string&)>& want) {
  Runner run{catalogs};
  std::vector<ValidationSet> out;
  if (want("megatron-2021-table1")) {
    DLSIM_ASSIGN_OR_RETURN(ValidationSet s, Megatron2021(run));
    out.push_back(std::move(s));
  }
  if (want("korthikanti-2022-full") || want("korthikanti-2022-seq-sel")) {
    DLSIM_ASSIGN_OR_RETURN(auto sets, Korthikanti2022(run));
    for (auto& s : sets)
      if (want(s.name)) out.push_back(std::move(s));
  }
  for (const auto& [name, build] : kLaterSets) {
    if (!want(name)) continue;
    DLSIM_ASSIGN_OR_RETURN(ValidationSet s, build(run));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Result<std::vector<ValidationSet>> RunValidation(const catalog::Catalogs& catalogs, const std::string& only) {
  return RunWanted(catalogs, [&](const std::string& name) {
    return only.empty() || name.find(only) != std::string::npos;
  });
}

Result<std::vector<ValidationSet>> RunValidationSets(const catalog::Catalogs& catalogs,
                                                     const std::vector<std::string>& names) {
  return RunWanted(catalogs, [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  });
}

}  // namespace dlsim::validate
