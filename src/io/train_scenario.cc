#include "dlsim/io/train_scenario.h"

#include <utility>
#include <vector>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"
#include "dlsim/hw/sm_clock.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/cost_section.h"
#include "dlsim/io/data_section.h"
#include "dlsim/io/hf_config.h"
#include "dlsim/io/launch_config.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/stack_profiles.h"
#include "dlsim/io/training_calibration_loader.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/train/context_parallel.h"
#include "dlsim/train/expert_routing.h"
#include "dlsim/train/layout_check.h"
#include "dlsim/train/node_defaults.h"

namespace dlsim::io {
namespace {

using train::PipelineScheduleKind;
using train::Recompute;

// Parse tables from train's name lists (one list per enum, train/options.h).
template <typename E, size_t N>
std::vector<std::pair<std::string, E>> NameTable(const std::pair<std::string_view, E> (&names)[N]) {
  std::vector<std::pair<std::string, E>> out;
  for (const auto& [name, value] : names) out.emplace_back(std::string(name), value);
  return out;
}

const std::vector<std::pair<std::string, PipelineScheduleKind>>& ScheduleNames() {
  static const auto* names = new auto(NameTable(train::kPipelineScheduleNames));
  return *names;
}

const std::vector<std::pair<std::string, Recompute>>& RecomputeNames() {
  static const auto* names = new auto(NameTable(train::kRecomputeNames));
  return *names;
}

const std::vector<std::pair<std::string, hw::DType>>& PrecisionNames() {
  static const auto* names = new std::vector<std::pair<std::string, hw::DType>>{
      {"bf16", hw::DType::kBf16}, {"fp16", hw::DType::kFp16}, {"fp8", hw::DType::kFp8}};
  return *names;
}

// "unknown GPU 'x' (did you mean 'y'?); allowed: a, b"
std::string UnknownName(std::string_view kind, const std::string& name, const std::vector<std::string>& names,
                        const std::vector<std::string>& names_and_aliases) {
  std::string msg = "unknown " + std::string(kind) + " '" + name + "'";
  if (auto m = ClosestMatch(name, names_and_aliases)) msg += " (did you mean '" + *m + "'?)";
  return msg + "; allowed: " + Join(names, ", ");
}

// The sections of one scenario, read once.
struct Sections {
  MapReader root, model, hardware, training, parallel;
};

// ----- reading (types and names) -----

// Starts `spec` from the catalog entry that model.name names; true when there is one. A model
// without a name must give its shape.
bool StartFromCatalog(const MapReader& m, const model::ModelCatalog& models, model::ModelSpec* spec,
                      const std::optional<LaunchConfig>& launch) {
  if (launch) {
    *spec = launch->model;
    return true;
  }
  for (std::string_view key : kLaunchKeys)
    if (m.Has(key)) return false;  // given, and its error recorded
  if (m.Has("hf_config")) return ReadHfConfigKey(m, *spec);
  if (!m.Has("name")) {
    spec->name = "custom";
    std::vector<std::string> missing;
    for (const char* key : {"layers", "hidden", "heads", "vocab"}) {
      if (!m.Has(key)) missing.push_back(key);
    }
    if (m.present() && !missing.empty()) {
      m.document().AddError(m.location(), "model",
                            "missing " + Join(missing, ", ") +
                                ": a model without 'name' must give layers, hidden, heads and vocab");
    }
    return false;
  }
  std::optional<std::string> name = m.Find<std::string>("name");
  if (!name) return false;
  auto found = models.Find(*name);
  if (found.ok()) {
    *spec = **found;
    return true;
  }
  m.AddError("name", model::IsHubId(*name)
                         ? found.error().message
                         : UnknownName("model", *name, models.Names(), models.NamesAndAliases()));
  return false;
}

void ReadModel(const MapReader& m, const model::ModelCatalog& models, model::ModelSpec* spec,
               const std::optional<LaunchConfig>& launch) {
  const bool from_catalog = StartFromCatalog(m, models, spec, launch);
  // For a catalog model, kv_heads and ffn_hidden follow overridden heads/hidden only where the
  // catalog entry used the defaults (multi-head attention, 4 * hidden).
  const bool follow_kv = !from_catalog || spec->kv_heads == spec->heads;
  const bool follow_ffn = !from_catalog || spec->ffn_hidden == 4 * spec->hidden;
  spec->layers = m.Get<int>("layers", spec->layers, limits::kLayers);
  spec->hidden = m.Get<int>("hidden", spec->hidden, limits::kHidden);
  spec->heads = m.Get<int>("heads", spec->heads, limits::kHeads);
  spec->vocab = m.Get<int>("vocab", spec->vocab, limits::kVocab);
  spec->kv_heads = m.Get<int>("kv_heads", follow_kv ? spec->heads : spec->kv_heads, limits::kHeads);
  spec->ffn_hidden =
      m.Get<int>("ffn_hidden", follow_ffn ? 4 * spec->hidden : spec->ffn_hidden, limits::kFfnHidden);
  spec->gated_mlp = m.Get<bool>("gated_mlp", spec->gated_mlp);
  spec->tied_embeddings = m.Get<bool>("tied_embeddings", spec->tied_embeddings);
  spec->attention_bias = m.Get<bool>("attention_bias", spec->attention_bias);
  spec->dropout = m.Get<double>("dropout", spec->dropout, limits::kDropout);
  spec->max_seq_len = m.Get<int>("max_seq_len", spec->max_seq_len, limits::kMaxSeqLen);
  spec->linear_bias = m.Get<bool>("linear_bias", spec->linear_bias);
  spec->arch = m.GetEnum("arch", spec->arch, ArchNames());
  spec->norm = m.GetEnum("norm", spec->norm,
                         {{"layernorm", model::Norm::kLayerNorm}, {"rmsnorm", model::Norm::kRmsNorm}});
  spec->position_embedding = m.GetEnum("position_embedding", spec->position_embedding,
                                       {{"rope", model::PositionEmbedding::kRope},
                                        {"learned", model::PositionEmbedding::kLearned},
                                        {"none", model::PositionEmbedding::kNone}});
  ReadMoeAndMlaShape(m, *spec);
  m.Finish();
}

// Resolves `name` (or `fallback` when the key is absent) to a canonical GPU; null on error.
const hw::GpuSpec* ReadGpu(const MapReader& h, const hw::Catalog& cat, const std::string& fallback) {
  std::string name = h.Get<std::string>("gpu", fallback);
  auto gpu = cat.FindGpu(name);
  if (gpu.ok()) return *gpu;
  h.AddError(h.Has("gpu") ? "gpu" : "node",
             UnknownName("GPU", name, cat.GpuNames(), cat.GpuNamesAndAliases()));
  return nullptr;
}

const hw::GpuSpec* ReadHardware(const MapReader& h, const hw::Catalog& cat, train::HardwareOptions* hw_opts) {
  if (std::optional<std::string> node_name = h.Find<std::string>("node")) {
    auto node = cat.FindNode(*node_name);
    if (node.ok()) {
      train::ApplyNodeDefaults(**node, *hw_opts);
    } else {
      h.AddError("node", UnknownName("node", *node_name, cat.NodeNames(), cat.NodeNames()));
    }
  }
  const hw::GpuSpec* gpu = ReadGpu(h, cat, hw_opts->gpu);
  if (gpu) hw_opts->gpu = gpu->name;
  hw_opts->gpus = h.Get<int>("gpus", hw_opts->gpus, limits::kGpus);
  hw_opts->gpus_per_node = h.Get<int>("gpus_per_node", hw_opts->gpus_per_node, limits::kGpusPerNode);
  hw_opts->nics_per_node = h.Get<int>("nics_per_node", hw_opts->nics_per_node, limits::kNicsPerNode);
  hw_opts->nic_gbps = h.Get<double>("nic_gbps", hw_opts->nic_gbps, limits::kNicGbps);
  if (auto mhz = h.Find<double>("sm_clock_mhz", limits::kSmClockMhz)) {
    hw_opts->sm_clock_mhz = *mhz;
    if (Result<double> share = gpu ? hw::SmClockShare(*gpu, *mhz) : 1.0; !share.ok())
      h.AddError("sm_clock_mhz", share.error().message);
  }
  std::string network = h.Get<std::string>("network", hw_opts->network);
  auto net = cat.FindNetwork(network);
  if (net.ok()) {
    hw_opts->network = (*net)->name;
  } else {
    h.AddError("network", UnknownName("network", network, cat.NetworkNames(), cat.NetworkNames()));
  }
  h.Finish();
  return gpu;
}

void ReadTraining(const MapReader& t, train::TrainingOptions* tr) {
  tr->seq_len = t.Get<int>("seq_len", tr->seq_len, limits::kSeqLen);
  tr->global_batch = t.Get<int>("global_batch", tr->global_batch, limits::kGlobalBatch);
  tr->micro_batch = t.Get<int>("micro_batch", tr->micro_batch, limits::kMicroBatch);
  tr->precision = t.GetEnum("precision", tr->precision, PrecisionNames());
  tr->attention = t.GetEnumOf("attention", tr->attention, model::kAttentionImplNames);
  tr->attention_backend =
      t.GetEnumOf("attention_backend", tr->attention_backend, cost::kAttentionBackendNames);
  tr->kernels = t.GetEnumOf("kernels", tr->kernels, model::kKernelsNames);
  tr->norm_impl = t.GetEnumOf("norm_impl", tr->norm_impl, model::kNormImplNames);
  if (t.Has("head_kernels"))
    tr->head_kernels =
        t.GetEnumOf("head_kernels", tr->head_kernels.value_or(tr->kernels), model::kKernelsNames);
  if (tr->norm_impl != model::NormImpl::kFused && tr->kernels != model::Kernels::kEager)
    t.AddError("norm_impl",
               "an RMSNorm written in Python runs as eager kernels: set kernels: eager (or a "
               "pytorch-eager stack)");
  if (t.Has("attention_backend") && tr->attention == model::AttentionImpl::kUnfused &&
      tr->attention_backend != cost::AttentionBackend::kModel)
    t.AddError(
        "attention_backend",
        "names a fused attention kernel's family, but attention is unfused (QK^T and AV priced as GEMMs): "
        "set attention: flash, or leave attention_backend out");
  tr->recipe = t.GetEnumOf("recipe", tr->recipe, train::kRecipeNames);
  tr->grad_accumulation =
      t.GetEnumOf("grad_accumulation", tr->grad_accumulation, train::kGradAccumulationNames);
  if (tr->recipe != train::Recipe::kMixed && tr->precision == hw::DType::kFp8)
    t.AddError("recipe",
               "the bf16 and autocast recipes compute in bf16; fp8 training needs recipe mixed "
               "(Transformer Engine keeps bf16 weights with fp32 masters)");
  if (t.Has("grad_dtype"))
    tr->grad_dtype =
        t.GetEnum("grad_dtype", hw::DType::kFp32,
                  {{"fp32", hw::DType::kFp32}, {"bf16", hw::DType::kBf16}, {"fp16", hw::DType::kFp16}});
  if (t.Has("video")) {
    const MapReader v = t.Section("video");
    model::VideoClip clip;
    clip.frames = v.Get<int>("frames", 1, limits::kFrames);
    clip.height = v.Require<int>("height", limits::kPixels).value_or(0);
    clip.width = v.Require<int>("width", limits::kPixels).value_or(0);
    v.Finish();
    tr->video = clip;
  }
  t.Finish();
}

// training.video (a DiT's clip): seq_len becomes the clip's latent tokens; not with seq_len.
void ApplyVideo(const MapReader& t, train::TrainOptions& o) {
  if (!o.training.video) return;
  if (o.model.arch != model::Arch::kDit) {
    t.AddError("video", "training.video needs a diffusion transformer (arch dit); model " + o.model.name +
                            " is a " + std::string(model::ArchName(o.model.arch)));
  } else if (t.Has("seq_len")) {
    t.AddError("video", "give training.video or training.seq_len, not both (the clip sets seq_len)");
  } else {
    const int64_t tokens = model::LatentTokens(o.model.dit, *o.training.video);
    if (tokens < 1 || tokens > (1 << 24))
      t.AddError("video", "the clip has " + std::to_string(tokens) + " latent tokens; at most 16777216");
    else
      o.training.seq_len = static_cast<int>(tokens);
  }
}

// sparsity: DSV's attention sparsity of a DiT (train/attention_sparsity.h), every key optional.
train::SparsityOptions ReadSparsitySection(const MapReader& r) {
  train::SparsityOptions o;
  const Range fraction = Range::Between(0, 1);
  o.target = r.Get<double>("target", o.target, fraction);
  o.head_spread = r.Get<double>("head_spread", o.head_spread, fraction);
  o.block_spread = r.Get<double>("block_spread", o.block_spread, Range::Between(0, 10));
  o.max_sparsity = r.Get<double>("max_sparsity", o.max_sparsity, Range::HalfOpen(0, 1));
  o.progress = r.Get<double>("progress", o.progress, fraction);
  o.dense_until = r.Get<double>("dense_until", o.dense_until, fraction);
  o.target_at = r.Get<double>("target_at", o.target_at, fraction);
  o.predictor_rank = r.Get<int>("predictor_rank", o.predictor_rank, limits::kHeadDim);
  o.kernel_efficiency = r.Get<double>("kernel_efficiency", o.kernel_efficiency, Range::Between(0.01, 1));
  o.kv_union = r.Get<double>("kv_union", o.kv_union, Range::Between(1, 1e6));
  o.blocks_per_rank = r.Get<int>("blocks_per_rank", o.blocks_per_rank, Range::Between(1, 64));
  o.seed = static_cast<uint64_t>(r.Get<int64_t>("seed", static_cast<int64_t>(o.seed), limits::kSeed));
  o.dense_layers = r.FindList<int>("dense_layers", limits::kStageLayers).value_or(std::vector<int>{});
  r.Finish();
  return o;
}

void ReadParallel(const MapReader& p, train::ParallelOptions* par) {
  par->tp = p.Get<int>("tp", par->tp, limits::kDegree);
  par->pp = p.Get<int>("pp", par->pp, limits::kDegree);
  par->cp = p.Get<int>("cp", par->cp, limits::kDegree);
  par->dp = p.Get<int>("dp", 0, limits::kDegree);
  par->sequence_parallel = p.Get<bool>("sequence_parallel", par->sequence_parallel);
  par->pipeline_schedule = p.GetEnum("pipeline_schedule", par->pipeline_schedule, ScheduleNames());
  par->virtual_stages = p.Get<int>("virtual_stages", par->virtual_stages, limits::kVirtualStages);
  par->zero = p.Get<int>("zero", par->zero, Range::Between(0, 3));
  par->recompute = p.GetEnum("recompute", par->recompute, RecomputeNames());
  par->overlap_grad_reduce = p.Get<bool>("overlap_grad_reduce", par->overlap_grad_reduce);
  par->overlap_param_gather = p.Get<bool>("overlap_param_gather", par->overlap_param_gather);
  par->keep_gathered = p.GetEnumOf("reshard_after_forward", par->keep_gathered, train::kReshardNames);
  if (par->keep_gathered == train::Pipelined::kYes && par->zero != 3)
    p.AddError("reshard_after_forward",
               "false keeps gathered parameters until the step's end, which only sharded parameters have: "
               "needs zero: 3 (FSDP / ZeRO-3), zero is " +
                   std::to_string(par->zero));
  par->defer_grad_reduce = p.GetEnumOf("defer_grad_reduce", par->defer_grad_reduce, train::kDeferNames);
  if (par->defer_grad_reduce == train::Pipelined::kYes && par->zero < 2)
    p.AddError("defer_grad_reduce",
               "true keeps the gradients unsharded until the last micro-batch, which only sharded gradients "
               "change: needs zero: 2 or 3, zero is " +
                   std::to_string(par->zero));
  par->tp_comm_overlap = p.GetEnumOf("tp_comm_overlap", par->tp_comm_overlap, train::kTpOverlapNames);
  par->sharding = p.GetEnumOf("sharding", par->sharding, train::kShardingNames);
  par->grad_reduce = p.GetEnumOf("grad_reduce", par->grad_reduce, train::kGradReduceNames);
  par->p2p_blocking = p.Get<bool>("p2p_blocking", par->p2p_blocking);
  par->overlap_contention =
      p.Get<double>("overlap_contention", par->overlap_contention, Range::Between(0, 1));
  par->ep = p.Get<int>("ep", par->ep, limits::kDegree);
  par->etp = p.Get<int>("etp", par->etp, Range::Between(0, 1 << 20));
  par->layers_per_stage =
      p.FindList<int>("layers_per_stage", limits::kStageLayers).value_or(std::vector<int>{});
  train::CpLayoutRegistry layouts("cp-layout");
  train::RegisterCpLayouts(layouts);
  const std::vector<std::string> names = layouts.Names();
  if (std::optional<size_t> i = p.FindChoice("cp_layout", names)) par->cp_layout = names[*i];
  par->cp_ulysses = p.Get<int>("cp_ulysses", par->cp_ulysses, Range::Between(0, 1 << 20));
  par->cp_comm = p.GetEnumOf("cp_comm", par->cp_comm, train::kCpCommNames);
  par->cp_impl = p.GetEnumOf("cp_impl", par->cp_impl, train::kCpImplNames);
  par->moe_dispatcher = p.GetEnumOf("moe_dispatcher", par->moe_dispatcher, train::kMoeDispatcherNames);
  p.Finish();
}

// training.stack: the profile's training and parallel keys (data/catalog/stacks.yaml), read before
// the scenario's own keys so that those override them.
void ApplyStack(const MapReader& training, train::TrainOptions* o,
                const std::optional<LaunchConfig>& launch) {
  std::optional<std::string> name = training.Find<std::string>("stack");
  if (!name && launch) name = launch->stack;  // the launch format's family, unless the scenario names one
  if (!name) return;
  Result<Document> doc = ParseStackProfiles();
  if (!doc.ok()) return training.AddError("stack", doc.error().message);
  const MapReader stacks = doc->Root().Section("stacks");
  if (!stacks.Has(*name))
    return training.AddError("stack", UnknownName("stack", *name, stacks.Keys(), stacks.Keys()));
  const MapReader profile = stacks.Section(*name);
  ReadTraining(profile.Section("training"), &o->training);
  ReadParallel(profile.Section("parallel"), &o->parallel);
  const MapReader fw = profile.Section("framework");
  if (fw.Has("layer_host_us"))
    o->training.stack_layer_host_us = fw.Get<double>("layer_host_us", 0, Range::Between(0, 1e5));
  fw.Finish();
  if (profile.Has("calibration"))
    o->training.stack_calibration = ReadTrainingArchitectures(profile.Section("calibration"));
  const Status status = doc->status();
  if (!status.ok()) training.AddError("stack", "stack " + *name + ": " + status.error().message);
  o->training.stack = *name;
}

// A histogram file: CSV with a `tokens` column, one row per expert in expert order; every value >= 0.
std::vector<double> ReadHistogramFile(const MapReader& r, const std::string& path) {
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) {
    r.AddError("histogram_file", text.error().message);
    return {};
  }
  Result<CsvTable> t = ParseCsv(*text, path);
  std::vector<double> out;
  for (size_t i = 0; t.ok() && i < t->rows.size(); ++i) {
    Result<double> v = t->Number(i, "tokens");
    if (!v.ok() || *v < 0) {
      r.AddError("histogram_file",
                 v.ok() ? t->Where(i, 0) + ": tokens must not be negative, found " + FormatNumber(*v, 6)
                        : v.error().message);
      return {};
    }
    out.push_back(*v);
  }
  if (!t.ok()) r.AddError("histogram_file", t.error().message);
  return out;
}

// routing: {skew: uniform | zipf | histogram, zipf_s: S, histogram_file: PATH | histogram: [w, ...]}.
train::RoutingOptions ReadRoutingSection(const MapReader& r, const std::string& base_dir) {
  train::RoutingOptions o;
  train::RoutingSkewRegistry skews("routing-skew");
  train::RegisterRoutingSkews(skews);
  const std::vector<std::string> names = skews.Names();
  if (std::optional<size_t> i = r.FindChoice("skew", names)) o.skew = names[*i];
  if (o.skew == "zipf") o.zipf_s = r.Get<double>("zipf_s", o.zipf_s, limits::kZipfS);
  if (o.skew == "histogram") {
    if (r.Has("histogram")) {  // the weights inline (what `plan --write-best` writes), one per expert
      o.histogram = r.FindList<double>("histogram", Range::Between(0, 1e12)).value_or(std::vector<double>{});
      o.histogram_file = "inline";
    } else if (std::optional<std::string> file = r.Require<std::string>("histogram_file")) {
      o.histogram_file = *file;
      o.histogram = ReadHistogramFile(r, ResolvePath(base_dir, *file));
    }
  }
  r.Finish();
  return o;
}

// ----- semantic checks (run once keys and types are right) -----

// Routing needs a MoE model, full sequences (no data section) and, for a histogram, one positive-sum
// entry per expert.
void CheckRouting(const MapReader& root, const train::TrainOptions& o) {
  const MapReader r = root.Section("routing");
  const int experts = o.model.moe.experts;
  if (!o.model.moe.enabled()) {
    root.AddError("routing", "model " + o.model.name + " is dense; routing needs a mixture-of-experts model");
  } else if (o.data) {
    root.AddError("routing",
                  "routing and data together are not modelled yet: give one of them (data-aware documents "
                  "with balanced routing, or data-aware routing with full sequences)");
  } else if (o.routing->skew == "histogram" && !o.routing->histogram.empty()) {
    double sum = 0;
    for (double w : o.routing->histogram) sum += w;
    if (static_cast<int>(o.routing->histogram.size()) != experts || !(sum > 0))
      r.AddError("histogram_file", o.routing->histogram_file + " has " +
                                       std::to_string(o.routing->histogram.size()) + " rows (sum " +
                                       FormatNumber(sum, 6) + "); expected one row per expert (" +
                                       std::to_string(experts) + ") with a positive sum");
  }
}

void CheckPrecision(const MapReader& t, const train::TrainingOptions& o, const hw::GpuSpec* gpu) {
  if (gpu == nullptr || gpu->Peak(o.precision).value() > 0) return;
  std::vector<std::string> supported;
  for (const auto& [name, type] : PrecisionNames()) {
    if (gpu->Peak(type).value() > 0) supported.push_back(name);
  }
  t.AddError("precision", std::string(hw::DTypeName(o.precision)) + " needs tensor cores that " + gpu->name +
                              " does not have; allowed on this GPU: " + Join(supported, ", "));
}

// The layout rules (train/layout_check.h), each reported at the key it is about; derives dp.
void CheckParallelLayout(const Sections& s, train::TrainOptions* o) {
  const std::vector<train::LayoutIssue> issues = train::CheckLayout(*o);
  for (const train::LayoutIssue& i : issues) {
    const size_t dot = i.key.find('.');
    const std::string section = i.key.substr(0, dot);
    // The section the rule is about (rules on model.experts or sparsity.dense_layers were reported under
    // parallel:).
    const bool known = section == "hardware" || section == "training" || section == "model";
    const MapReader named = known || section == "parallel" ? s.parallel : s.root.Section(section);
    const MapReader& r = section == "hardware"   ? s.hardware
                         : section == "training" ? s.training
                         : section == "model"    ? s.model
                         : named.present()       ? named
                                                 : s.parallel;
    if (dot == std::string::npos) {
      s.root.document().AddError(r.location(), section, i.message);
    } else {
      const std::string key = i.key.substr(dot + 1);
      r.AddError(key, r.Has(key) ? i.message : i.message + " (" + i.key + " not given: the default)");
    }
  }
  if (issues.empty()) o->parallel.dp = train::DataParallelSize(*o);
}

}  // namespace

Result<train::TrainOptions> ParseTrainScenario(std::string_view text, std::string file_name,
                                               const hw::Catalog& hardware, const model::ModelCatalog& models,
                                               const std::vector<std::string>& extra_root_keys) {
  const std::string base_dir = FolderOf(file_name);
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, std::move(file_name)));
  MapReader root = doc.Root();
  const Sections s{root, root.Section("model"), root.Section("hardware"), root.Section("training"),
                   root.Section("parallel")};
  train::TrainOptions o;
  if (root.present() && !root.Has("model")) {
    doc.AddError(
        root.location(), "model",
        "missing section: give 'name' (a catalog model, see 'dlsim catalog list') or the shape (layers, "
        "hidden, heads, vocab)");
  }
  const std::optional<LaunchConfig> launch = ReadLaunchKey(s.model, models);
  ReadModel(s.model, models, &o.model, launch);
  if (launch && launch->gpus) o.hardware.gpus = *launch->gpus;
  const hw::GpuSpec* gpu = ReadHardware(s.hardware, hardware, &o.hardware);
  ApplyStack(s.training, &o, launch);
  if (launch) ApplyLaunch(*launch, o);
  ReadTraining(s.training, &o.training);
  ReadParallel(s.parallel, &o.parallel);
  if (root.Has("data")) o.data = ReadDataSection(root.Section("data"), base_dir);
  if (root.Has("routing")) o.routing = ReadRoutingSection(root.Section("routing"), base_dir);
  if (root.Has("sparsity")) o.sparsity = ReadSparsitySection(root.Section("sparsity"));
  ApplyVideo(s.training, o);
  o.seed = static_cast<uint64_t>(s.root.Get<int64_t>("seed", 1, limits::kSeed));
  o.compute_model = ReadCostSection(root.Section("cost"), o.compute_model);
  s.root.Allow(extra_root_keys);
  s.root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());

  CheckModelShape(s.model, o.model);  // the shape rules of ModelSpec, each at its key
  CheckPrecision(s.training, o.training, gpu);
  CheckParallelLayout(s, &o);
  if (o.routing) CheckRouting(root, o);
  DLSIM_RETURN_IF_ERROR(doc.status());
  return o;
}

Result<train::TrainOptions> LoadTrainScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                                  const model::ModelCatalog& models) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseTrainScenario(text, path, hardware, models);
}

std::string SummarizeTrainOptions(const train::TrainOptions& o) {
  const auto& h = o.hardware;
  const auto& p = o.parallel;
  const auto& t = o.training;
  std::string out = o.model.name + " on " + std::to_string(h.gpus) + " x " + h.gpu + " (";
  if (!h.node.empty()) out += h.node + ", ";
  out += std::to_string(h.gpus_per_node) + " per node, " + h.network + "); ";
  out += "tp " + std::to_string(p.tp) + " pp " + std::to_string(p.pp) + " cp " + std::to_string(p.cp) +
         (p.cp_layout != "ring" ? " (" + p.cp_layout + ")" : "") + " dp " + std::to_string(p.dp) + "; " +
         std::string(PipelineScheduleName(p.pipeline_schedule));
  if (p.virtual_stages > 1) out += " x" + std::to_string(p.virtual_stages);
  out += "; zero " + std::to_string(p.zero) + "; recompute " + std::string(RecomputeName(p.recompute)) + "; ";
  out += "seq " + std::to_string(t.seq_len) + ", global batch " + std::to_string(t.global_batch) +
         ", micro batch " + std::to_string(t.micro_batch) + ", " + std::string(hw::DTypeName(t.precision));
  return out;
}

}  // namespace dlsim::io

namespace dlsim::io::internal {

const hw::GpuSpec* ReadTrainHardware(const MapReader& h, const hw::Catalog& cat, train::HardwareOptions* o) {
  return ReadHardware(h, cat, o);
}

}  // namespace dlsim::io::internal
