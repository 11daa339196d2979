// The validation sets: published rows -> training scenarios. Every choice a table leaves
// open is a named constant here and is explained in docs/validation.md.
#include <algorithm>
#include <cmath>
#include <functional>

#include "dlsim/core/csv.h"
#include "dlsim/train/step_model.h"
#include "dlsim/validate/validation.h"
#include "held_out_sets.h"
#include "set_scenarios.h"

namespace dlsim::embedded {
std::string_view Megatron2021Table1Csv();
std::string_view Korthikanti2022Table5Csv();
std::string_view Korthikanti2022MemoryCsv();
std::string_view VtrainSingleNodeCsv();
std::string_view Nemo2407H100Csv();
}  // namespace dlsim::embedded

namespace dlsim::validate {
namespace {

using internal::DgxA100;
using internal::NemoRow;
using internal::Row;
using internal::Runner;
using internal::Source;
using internal::StepFromTokensPerGpu;
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
    set.rows.push_back(Row(*t.Text(i, "params_b") + "B", *t.Number(i, "derived_step_time_s"), o, run));
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
    full.rows.push_back(Row(label, *t.Number(i, "time_full_s"), o, run));
    o.parallel.recompute = Recompute::kSelective;
    o.parallel.sequence_parallel = true;
    seqsel.rows.push_back(Row(label, *t.Number(i, "time_seq_sel_s"), o, run));
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

// "g8 h1024 l24 b16/2 tp2 dp2 pp2": a vTrain row's GPUs, hidden, layers, batch/micro-batch and layout.
std::string VtrainLabel(const TrainOptions& o) {
  std::string label;
  for (const auto& [key, value] : {std::pair<const char*, int>{"g", o.hardware.gpus},
                                   {" h", o.model.hidden},
                                   {" l", o.model.layers},
                                   {" b", o.training.global_batch},
                                   {"/", o.training.micro_batch},
                                   {" tp", o.parallel.tp},
                                   {" dp", o.parallel.dp},
                                   {" pp", o.parallel.pp}}) {
    label += key;
    label += std::to_string(value);
  }
  return label;
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
    const std::string label = VtrainLabel(o);
    set.rows.push_back(Row(label, *t.Number(i, "iteration_time_ms") * 1e-3, o, run));
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
    set.rows.push_back(Row(label + " " + std::to_string(o.hardware.gpus) + "gpu", measured, o, run));
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

double ValidationSet::SignedMeanErrorPct() const {
  if (rows.empty()) return 0;
  double s = 0;
  for (const auto& r : rows) s += r.ErrorPct();
  return s / static_cast<double>(rows.size());
}

double Mape(const std::vector<double>& predicted, const std::vector<double>& measured) {
  double sum = 0;
  for (size_t i = 0; i < predicted.size(); ++i) sum += std::fabs(predicted[i] - measured[i]) / measured[i];
  return predicted.empty() ? 0 : 100.0 * sum / static_cast<double>(predicted.size());
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
    {"megatron-bridge-moe-b200", internal::MegatronBridgeMoe},
    {"megatron-core-moe-h100", internal::MegatronCoreMoeH100},
    {"megatron-moe-layer-h100", internal::MegatronMoeLayerH100},
    {"megatron-bridge-dense-b200", internal::MegatronBridgeDense},
    {"mlperf-v3.1-gpt3-h100", internal::MlperfGpt3},
    {"nemo-long-context-cp-h100", internal::NemoLongContextH100},
    {"nemo-long-context-cp-b200", internal::NemoLongContextB200},
    {"torchtitan-a100-fsdp", internal::TorchtitanFsdp},
    {"torchtitan-h100-nd", internal::TorchtitanH100},
    {"torchtitan-h100-405b-2d", internal::TorchtitanH100405b},
    {"bloom-a100-jean-zay", internal::BloomJeanZay},
    {"flash-attention-gpt3", internal::FlashAttentionGpt3},
    {"megatron-lm-memory", internal::MegatronLmMemory},
    {"pytorch-bf16-memory", internal::PytorchBf16Memory},
    {"torchtitan-h100-nd-memory", internal::TorchtitanH100Memory},
    {"serving-vllm-public", internal::ServingVllmPublic},
    {"serving-vllm-public-ttft", internal::ServingVllmPublicTtft},
    {"serving-vllm-public-itl", internal::ServingVllmPublicItl},
    {"serving-vllm-public-throughput", internal::ServingVllmPublicThroughput},
    {"serving-vllm-public-latency", internal::ServingVllmPublicLatency},
    {"serving-h200-steps", internal::ServingH200Steps}};

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
