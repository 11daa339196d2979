#include "dlsim/io/multitask_workload.h"

#include <optional>
#include <utility>

#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/cost_section.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/yaml_reader.h"
#include "train_sections.h"

namespace dlsim::io {
namespace {

// Tokens per sample and samples per step of one stage / task (a 1M-token sample, 16M samples).
const Range kTokens = Range::Between(1, 1 << 20);
const Range kBatch = Range::Between(1, 1 << 24);
const Range kIntraGbPerS = Range::ZeroOr(0.001, 1e6);

// `model:` of a module: a catalog entry (`name`) with shape overrides, or an inline shape.
model::ModelSpec ReadModuleModel(const MapReader& m, const model::ModelCatalog& models,
                                 const std::string& module) {
  model::ModelSpec spec;
  if (std::optional<std::string> name = m.Find<std::string>("name")) {
    auto found = models.Find(*name);
    if (found.ok()) {
      spec = **found;
    } else {
      m.AddError("name", UnknownNameMessage("model", *name, models.Names()));
    }
  } else {
    spec.name = module;
    spec.vocab = 1;  // transformer layers do not use it
    for (const char* key : {"layers", "hidden", "heads"}) {
      if (!m.Has(key)) m.AddError(key, std::string("an inline module shape needs '") + key + "'");
    }
  }
  ReadModelShape(m, spec, false);
  m.Finish();
  if (!m.document().has_errors()) CheckModelShape(m, spec);
  return spec;
}

multitask::Module ReadModule(const MapReader& e, const model::ModelCatalog& models) {
  multitask::Module mod;
  mod.name = e.Require<std::string>("name").value_or("");
  const bool has_model = e.Has("model"), has_head = e.Has("head");
  if (has_model == has_head) {
    e.AddError(has_model ? "head" : "name",
               "a module gives exactly one of 'model' (transformer layers) or 'head'");
  }
  if (has_head) {
    const MapReader h = e.Section("head");
    mod.kind = multitask::ModuleKind::kHead;
    mod.shape.name = mod.name;
    mod.shape.layers = 1;
    mod.shape.hidden = h.Require<int>("hidden", limits::kHidden).value_or(1);
    mod.shape.vocab = h.Require<int>("out_features", limits::kVocab).value_or(1);
    mod.shape.heads = mod.shape.kv_heads = 1;
    mod.shape.ffn_hidden = mod.shape.hidden;
    mod.shape.norm = h.GetEnum("norm", model::Norm::kLayerNorm,
                               {{"layernorm", model::Norm::kLayerNorm}, {"rmsnorm", model::Norm::kRmsNorm}});
    h.Finish();
  } else if (has_model) {
    mod.shape = ReadModuleModel(e.Section("model"), models, mod.name);
  }
  e.Finish();
  return mod;
}

multitask::Task ReadTask(const MapReader& e) {
  multitask::Task t;
  t.name = e.Require<std::string>("name").value_or("");
  t.batch = e.Require<int>("batch", kBatch).value_or(1);
  for (const MapReader& s : e.SectionList("stages")) {
    multitask::Stage st;
    st.name = s.Require<std::string>("name").value_or("");
    st.module = s.Require<std::string>("module").value_or("");
    st.tokens = s.Require<int>("tokens", kTokens).value_or(1);
    if (s.Has("after")) st.after = s.FindList<std::string>("after").value_or(std::vector<std::string>{});
    s.Finish();
    t.stages.push_back(std::move(st));
  }
  if (!e.Has("stages")) e.AddError("name", "a task needs 'stages'");
  e.Finish();
  return t;
}

multitask::MultitaskOptions ReadWorkload(const MapReader& r, const hw::Catalog& hardware,
                                         const model::ModelCatalog& models) {
  multitask::MultitaskOptions o;
  multitask::Workload& w = o.workload;
  w.name = r.Require<std::string>("name").value_or("");
  w.source = r.Get<std::string>("source", "");
  const MapReader h = r.Section("hardware");
  o.intra_gb_per_s = h.Get<double>("intra_gb_per_s", 0.0, kIntraGbPerS);
  internal::ReadTrainHardware(h, hardware, &o.hardware);
  const MapReader t = r.Section("training");
  o.pricing.precision =
      t.GetEnum("precision", o.pricing.precision,
                {{"bf16", hw::DType::kBf16}, {"fp16", hw::DType::kFp16}, {"fp8", hw::DType::kFp8}});
  o.pricing.attention = t.GetEnumOf("attention", o.pricing.attention, model::kAttentionImplNames);
  o.pricing.recompute = t.GetEnumOf("recompute", o.pricing.recompute, train::kRecomputeNames);
  o.pricing.sequence_parallel = t.Get<bool>("sequence_parallel", o.pricing.sequence_parallel);
  o.pricing.host_floor = t.Get<bool>("host_floor", o.pricing.host_floor);
  t.Finish();
  o.placement = r.GetEnum(
      "placement", o.placement,
      {{"min_movement", multitask::Placement::kMinMovement}, {"in_order", multitask::Placement::kInOrder}});
  o.compute_model = ReadCostSection(r.Section("cost"), o.compute_model);
  o.pricing.compute_model_name = o.compute_model;
  for (const MapReader& m : r.SectionList("modules")) w.modules.push_back(ReadModule(m, models));
  for (const MapReader& task : r.SectionList("tasks")) w.tasks.push_back(ReadTask(task));
  if (!r.Has("modules")) r.AddError("name", "a workload needs 'modules'");
  if (!r.Has("tasks")) r.AddError("name", "a workload needs 'tasks'");
  r.Finish();
  if (!r.document().has_errors()) {
    Status st = multitask::Validate(w);
    if (!st.ok()) r.document().AddError(r.location(), r.path(), st.error().message);
  }
  return o;
}

}  // namespace

Result<std::vector<multitask::MultitaskOptions>> ParseMultitaskWorkloads(std::string_view text,
                                                                         std::string file_name,
                                                                         const hw::Catalog& hardware,
                                                                         const model::ModelCatalog& models) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, std::move(file_name)));
  MapReader root = doc.Root();
  std::vector<multitask::MultitaskOptions> out;
  if (root.Has("workloads")) {
    for (const MapReader& w : root.SectionList("workloads")) out.push_back(ReadWorkload(w, hardware, models));
    root.Allow({"definitions"});  // a place for the YAML anchors the workloads refer to
    root.Finish();
  } else {
    out.push_back(ReadWorkload(root, hardware, models));
  }
  DLSIM_RETURN_IF_ERROR(doc.status());
  return out;
}

}  // namespace dlsim::io
