#include "dlsim/io/plan_scenario.h"

#include <fmt/core.h>

#include <algorithm>
#include <sstream>

#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/data_section.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/io/yaml_writer.h"
#include "dlsim/train/layout_check.h"

namespace dlsim::io {
namespace {

using train::PipelineScheduleKind;
using train::Recompute;

// A list of values of `key`; records an error for an empty list.
template <typename T>
std::vector<T> ReadList(const MapReader& s, std::string_view key, Range range = Range::Positive()) {
  std::vector<T> v = s.FindList<T>(key, range).value_or(std::vector<T>{});
  if (s.Has(key) && v.empty() && !s.document().has_errors()) s.AddError(key, "give at least one value");
  return v;
}

// A list of enum names, each checked against `all` (named by `name_of`).
template <typename E, typename NameFn>
std::vector<E> ReadEnumList(const MapReader& s, std::string_view key, const std::vector<E>& all,
                            NameFn name_of) {
  std::vector<E> out;
  std::vector<std::string> allowed;
  for (E e : all) allowed.emplace_back(name_of(e));
  for (const std::string& name : ReadList<std::string>(s, key, Range::Any())) {
    auto it = std::find(allowed.begin(), allowed.end(), name);
    if (it == allowed.end()) {
      std::string msg = "unknown value '" + name + "'";
      if (auto m = ClosestMatch(name, allowed)) msg += " (did you mean '" + *m + "'?)";
      s.AddError(key, msg + "; allowed: " + Join(allowed, ", "));
      continue;
    }
    out.push_back(all[it - allowed.begin()]);
  }
  return out;
}

void ReadConstraints(const MapReader& c, plan::Constraints* k) {
  k->gpus = ReadList<int>(c, "gpus", limits::kGpus);
  k->gpus_min = c.Get<int>("min_gpus", 0, limits::kGpus);
  k->gpus_max = c.Get<int>("max_gpus", 0, limits::kGpus);
  if (auto t = c.Find<int64_t>("tokens_per_step", Range::Between(1, train::kMaxTokensPerStep)))
    k->tokens_per_step = *t;
  k->memory_headroom = c.Get<double>("memory_headroom", 0.0, {0, 1, false});
  k->objective = c.GetEnum("objective", plan::Objective::kStepTime,
                           {{"step_time", plan::Objective::kStepTime},
                            {"tokens_per_gpu_second", plan::Objective::kTokensPerGpuSecond},
                            {"cost", plan::Objective::kCost}});
  k->gpu_hour_cost = c.Get<double>("gpu_hour_cost", 1.0, Range::Between(1e-6, 1e6));
  c.Finish();
}

void ReadSearch(const MapReader& s, plan::PlanOptions* p) {
  plan::SearchSpace& sp = p->space;
  sp.tp = ReadList<int>(s, "tp", limits::kDegree);
  sp.pp = ReadList<int>(s, "pp", limits::kDegree);
  sp.cp = ReadList<int>(s, "cp", limits::kDegree);
  sp.dp = ReadList<int>(s, "dp", limits::kDegree);
  sp.micro_batch = ReadList<int>(s, "micro_batch", limits::kMicroBatch);
  sp.virtual_stages = ReadList<int>(s, "virtual_stages", limits::kVirtualStages);
  sp.zero = ReadList<int>(s, "zero", Range::Between(0, 3));
  sp.recompute = ReadEnumList(
      s, "recompute", std::vector<Recompute>{Recompute::kNone, Recompute::kSelective, Recompute::kFull},
      RecomputeName);
  sp.pipeline_schedule = ReadEnumList(
      s, "pipeline_schedule",
      std::vector<PipelineScheduleKind>{PipelineScheduleKind::kGpipe, PipelineScheduleKind::kOneFOneB,
                                        PipelineScheduleKind::kInterleaved},
      PipelineScheduleName);
  sp.sequence_parallel = ReadList<bool>(s, "sequence_parallel", Range::Any());
  sp.ep = ReadList<int>(s, "ep", limits::kDegree);
  p->top_k = s.Get<int>("top_k", p->top_k, Range::Between(1, 100000));
  p->dominance = s.Get<bool>("dominance", p->dominance);
  ReadConstraints(s.Section("constraints"), &p->constraints);
  s.Finish();
}

void CheckConstraints(const MapReader& c, const train::TrainOptions& base, const plan::Constraints& k) {
  const bool has_min = c.Has("min_gpus"), has_max = c.Has("max_gpus");
  if (has_min != has_max) c.AddError(has_min ? "min_gpus" : "max_gpus", "give both min_gpus and max_gpus");
  if (has_min && has_max && k.gpus_min > k.gpus_max)
    c.AddError("min_gpus", fmt::format("min_gpus {} is above max_gpus {}", k.gpus_min, k.gpus_max));
  if (!k.gpus.empty() && has_min)
    c.AddError("gpus", "give either a gpus list or min_gpus/max_gpus, not both");
  if (k.tokens_per_step && *k.tokens_per_step < base.training.seq_len)
    c.AddError("tokens_per_step", fmt::format("tokens_per_step {} is less than one sequence "
                                              "(training.seq_len {})",
                                              *k.tokens_per_step, base.training.seq_len));
  if (k.memory_headroom >= 1)
    c.AddError("memory_headroom", "must be below 1 (a fraction of the GPU's memory)");
}

// The number of combinations the lists span (an upper bound: GPU counts of a range count once per
// GPU), refused above kMaxSearchSpace so a search cannot run for days or exhaust memory.
void CheckSpaceSize(const MapReader& s, const plan::PlanOptions& p) {
  const plan::SearchSpace& sp = p.space;
  const plan::Constraints& c = p.constraints;
  double n = 1;
  for (size_t k : {sp.tp.size(), sp.pp.size(), sp.cp.size(), sp.micro_batch.size(), sp.virtual_stages.size(),
                   sp.zero.size(), sp.recompute.size(), sp.pipeline_schedule.size(),
                   sp.sequence_parallel.size(), sp.ep.size()})
    n *= std::max<size_t>(k, 1);
  const double gpus = !sp.dp.empty()    ? static_cast<double>(sp.dp.size())
                      : !c.gpus.empty() ? static_cast<double>(c.gpus.size())
                      : c.gpus_min > 0  ? static_cast<double>(c.gpus_max - c.gpus_min + 1)
                                        : 1.0;
  n *= gpus;
  if (n > kMaxSearchSpace)
    s.document().AddError(s.location(), "search",
                          "the lists span up to " + FormatNumber(n, 4) + " combinations; at most " +
                              FormatNumber(kMaxSearchSpace, 4) +
                              " (narrow the lists or the min_gpus..max_gpus range)");
}

// A YAML boolean.
const char* YamlBool(bool v) { return v ? "true" : "false"; }

// Writes the model section: the catalog name (unless custom) and every shape key.
void WriteModelYaml(const model::ModelSpec& m, std::ostringstream& y) {
  const auto b = YamlBool;
  y << "model:\n";
  if (m.name != "custom") y << "  name: " << m.name << "\n";
  y << fmt::format(
      "  arch: {}\n  layers: {}\n  hidden: {}\n  heads: {}\n  kv_heads: {}\n  "
      "ffn_hidden: {}\n",
      model::ArchName(m.arch), m.layers, m.hidden, m.heads, m.kv_heads, m.ffn_hidden);
  if (m.arch != model::Arch::kDit || m.vocab > 0) y << "  vocab: " << m.vocab << "\n";  // a DiT has none
  y << fmt::format(
      "  gated_mlp: {}\n  tied_embeddings: {}\n  attention_bias: {}\n  "
      "linear_bias: {}\n  norm: {}\n"
      "  position_embedding: {}\n  dropout: {}\n  max_seq_len: {}\n",
      b(m.gated_mlp), b(m.tied_embeddings), b(m.attention_bias), b(m.linear_bias), model::NormName(m.norm),
      model::PositionEmbeddingName(m.position_embedding), m.dropout, m.max_seq_len);
  y << FormatMoeAndMlaKeys(m, "  ");
}

// Writes the hardware section.
void WriteHardwareYaml(const train::HardwareOptions& h, std::ostringstream& y) {
  y << "hardware:\n";
  if (!h.node.empty()) y << "  node: " << h.node << "\n";
  y << fmt::format(
      "  gpu: {}\n  gpus: {}\n  gpus_per_node: {}\n  "
      "nics_per_node: {}\n  nic_gbps: {}\n  network: {}\n",
      h.gpu, h.gpus, h.gpus_per_node, h.nics_per_node, h.nic_gbps, h.network);
  if (h.sm_clock_mhz) y << "  sm_clock_mhz: " << *h.sm_clock_mhz << "\n";
}

// Writes the training section: the stack first (its host time comes back with it; the keys written after it
// are the resolved ones, so they agree with what it set), grad_dtype only when set.
void WriteTrainingYaml(const train::TrainingOptions& t, std::ostringstream& y) {
  y << "training:\n";
  if (!t.stack.empty()) y << "  stack: " << YamlQuoted(t.stack) << "\n";
  if (t.video)  // the clip sets seq_len (its latent tokens); the reader refuses both
    y << fmt::format("  video: {{frames: {}, height: {}, width: {}}}\n", t.video->frames, t.video->height,
                     t.video->width);
  else
    y << "  seq_len: " << t.seq_len << "\n";
  y << fmt::format("  global_batch: {}\n  micro_batch: {}\n  precision: {}\n", t.global_batch, t.micro_batch,
                   hw::DTypeName(t.precision));
  y << "  attention: " << model::AttentionImplName(t.attention) << "\n";
  // The family of a fused kernel only: with unfused attention a stack's family is unused, and naming it is an
  // error.
  if (t.attention == model::AttentionImpl::kFlash)
    y << "  attention_backend: " << cost::AttentionBackendName(t.attention_backend) << "\n";
  y << "  recipe: " << train::RecipeName(t.recipe) << "\n";
  y << "  kernels: " << model::KernelsName(t.kernels) << "\n";
  if (t.norm_impl != model::NormImpl::kFused)
    y << "  norm_impl: " << model::NormImplName(t.norm_impl) << "\n";
  if (t.head_kernels) y << "  head_kernels: " << model::KernelsName(*t.head_kernels) << "\n";
  if (t.grad_dtype) y << "  grad_dtype: " << hw::DTypeName(*t.grad_dtype) << "\n";
  if (t.grad_accumulation != train::GradAccumulation::kFused)
    y << "  grad_accumulation: " << train::GradAccumulationName(t.grad_accumulation) << "\n";
}

// Writes the parallel section (layers_per_stage only when set).
void WriteParallelYaml(const train::ParallelOptions& p, std::ostringstream& y) {
  const auto b = YamlBool;
  y << fmt::format(
      "parallel:\n  tp: {}\n  pp: {}\n  cp: {}\n  dp: {}\n  "
      "sequence_parallel: {}\n  pipeline_schedule: {}\n"
      "  virtual_stages: {}\n  zero: {}\n  recompute: {}\n  "
      "overlap_grad_reduce: {}\n  overlap_param_gather: {}\n"
      "  tp_comm_overlap: {}\n",
      p.tp, p.pp, p.cp, p.dp, b(p.sequence_parallel), train::PipelineScheduleName(p.pipeline_schedule),
      p.virtual_stages, p.zero, train::RecomputeName(p.recompute), b(p.overlap_grad_reduce),
      b(p.overlap_param_gather), train::TpOverlapName(p.tp_comm_overlap));
  if (p.keep_gathered != train::Pipelined::kNo)
    y << "  reshard_after_forward: " << train::ReshardName(p.keep_gathered) << "\n";
  if (p.defer_grad_reduce != train::Pipelined::kNo)
    y << "  defer_grad_reduce: " << train::DeferName(p.defer_grad_reduce) << "\n";
  if (p.ep != 1 || p.etp != 0) y << fmt::format("  ep: {}\n  etp: {}\n", p.ep, p.etp);
  if (p.cp_layout != "ring" || p.cp_ulysses != 0)
    y << fmt::format("  cp_layout: {}\n  cp_ulysses: {}\n", p.cp_layout, p.cp_ulysses);
  if (p.grad_reduce != train::GradReduce::kSharded)
    y << "  grad_reduce: " << train::GradReduceName(p.grad_reduce) << "\n";
  if (p.p2p_blocking) y << "  p2p_blocking: true\n";
  if (p.sharding != train::Sharding::kFlat) y << "  sharding: " << train::ShardingName(p.sharding) << "\n";
  if (p.overlap_contention != train::kOverlapContention)
    y << fmt::format("  overlap_contention: {}\n", p.overlap_contention);
  if (p.cp_comm != train::CpComm::kP2p) y << fmt::format("  cp_comm: {}\n", train::CpCommName(p.cp_comm));
  if (p.cp_impl != train::CpImpl::kFused) y << fmt::format("  cp_impl: {}\n", train::CpImplName(p.cp_impl));
  if (p.moe_dispatcher != train::MoeDispatcher::kAllToAll)
    y << fmt::format("  moe_dispatcher: {}\n", train::MoeDispatcherName(p.moe_dispatcher));
  if (!p.layers_per_stage.empty()) {
    std::vector<std::string> v;
    for (int n : p.layers_per_stage) v.push_back(std::to_string(n));
    y << "  layers_per_stage: [" << Join(v, ", ") << "]\n";
  }
}

// Writes the sparsity section (train/attention_sparsity.h), every key; doubles with 17 digits so that they
// read back exactly.
void WriteSparsityYaml(const train::SparsityOptions& s, std::ostringstream& y) {
  const auto n = [](double v) { return FormatNumber(v, 17); };
  y << "sparsity:\n";
  y << "  target: " << n(s.target) << "\n  head_spread: " << n(s.head_spread)
    << "\n  block_spread: " << n(s.block_spread) << "\n  max_sparsity: " << n(s.max_sparsity)
    << "\n  progress: " << n(s.progress) << "\n  dense_until: " << n(s.dense_until)
    << "\n  target_at: " << n(s.target_at) << "\n  predictor_rank: " << s.predictor_rank
    << "\n  kernel_efficiency: " << n(s.kernel_efficiency) << "\n  kv_union: " << n(s.kv_union)
    << "\n  blocks_per_rank: " << s.blocks_per_rank << "\n  seed: " << s.seed << "\n";
  if (!s.dense_layers.empty()) {
    std::vector<std::string> v;
    for (int l : s.dense_layers) v.push_back(std::to_string(l));
    y << "  dense_layers: [" << Join(v, ", ") << "]\n";
  }
}

// The routing section (MoE): the histogram inline, so the written file does not depend on where the
// original's histogram file was.
void WriteRoutingYaml(const train::RoutingOptions& r, std::ostringstream& y) {
  y << "routing:\n  skew: " << r.skew << "\n";
  if (r.skew == "zipf") y << "  zipf_s: " << FormatNumber(r.zipf_s, 17) << "\n";
  if (r.skew == "histogram") {
    std::vector<std::string> w;
    for (double v : r.histogram) w.push_back(FormatNumber(v, 17));
    y << "  histogram: [" << Join(w, ", ") << "]\n";
  }
}

}  // namespace

std::string FormatModelSectionYaml(const model::ModelSpec& m) {
  std::ostringstream y;
  WriteModelYaml(m, y);
  return y.str();
}

Result<PlanScenario> ParsePlanScenario(std::string_view text, std::string file_name,
                                       const hw::Catalog& hardware, const model::ModelCatalog& models) {
  PlanScenario out;
  DLSIM_ASSIGN_OR_RETURN(out.base, ParseTrainScenario(text, file_name, hardware, models, {"search"}));
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, std::move(file_name)));
  const MapReader search = doc.Root().Section("search");
  if (!search.present()) {
    doc.AddError(doc.Root().location(), "search",
                 "missing section: list candidate values per key, e.g. "
                 "'search: {tp: [1, 2, 4, 8]}' "
                 "(docs/planner.md)");
  }
  ReadSearch(search, &out.options);
  DLSIM_RETURN_IF_ERROR(doc.status());
  CheckConstraints(search.Section("constraints"), out.base, out.options.constraints);
  CheckSpaceSize(search, out.options);
  DLSIM_RETURN_IF_ERROR(doc.status());
  return out;
}

Result<PlanScenario> LoadPlanScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                          const model::ModelCatalog& models) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParsePlanScenario(text, path, hardware, models);
}

std::string FormatTrainScenarioYaml(const train::TrainOptions& o, std::string_view comment) {
  std::ostringstream y;
  std::istringstream lines{std::string(comment)};
  for (std::string line; std::getline(lines, line);) y << "# " << line << "\n";
  WriteModelYaml(o.model, y);
  WriteHardwareYaml(o.hardware, y);
  WriteTrainingYaml(o.training, y);
  WriteParallelYaml(o.parallel, y);
  if (o.data) y << FormatDataSectionYaml(*o.data);
  if (o.sparsity) WriteSparsityYaml(*o.sparsity, y);
  if (o.routing) WriteRoutingYaml(*o.routing, y);
  y << "cost:\n  model: " << o.compute_model << "\n";
  y << "seed: " << o.seed << "\n";
  return y.str();
}

}  // namespace dlsim::io
