#include "dlsim/io/calibration_loader.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "dlsim/cost/tree_ensemble.h"
#include "dlsim/io/embedded.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

const Range kFraction = Range{0, 1, true};  // (0, 1]

Duration Micros(const MapReader& r, const char* key, Duration def) {
  return Seconds(r.Get<double>(key, def.ToSeconds() * 1e6, Range::NonNegative()) * 1e-6);
}

// The tile-level GEMM model's constants (cost/tile_gemm.h); absent: the built-in defaults.
void ReadTile(const MapReader& r, cost::TileCalibration& t) {
  const MapReader tile = r.Section("tile");
  t.mma_efficiency = tile.Get<double>("mma_efficiency", t.mma_efficiency, kFraction);
  t.hbm_efficiency = tile.Get<double>("hbm_efficiency", t.hbm_efficiency, kFraction);
  t.launch = Micros(tile, "launch_us", t.launch);
  t.tile_overhead = Micros(tile, "tile_overhead_us", t.tile_overhead);
  t.memory_latency = Micros(tile, "memory_latency_us", t.memory_latency);
  tile.Finish();
}

cost::AttentionCalibration ReadAttention(const MapReader& att, cost::AttentionCalibration a) {
  a.fwd_efficiency = att.Get<double>("fwd_efficiency", a.fwd_efficiency, kFraction);
  a.bwd_efficiency = att.Get<double>("bwd_efficiency", a.bwd_efficiency, kFraction);
  a.overhead = Micros(att, "overhead_us", a.overhead);
  a.kv_half = att.Get<double>("kv_half", a.kv_half, Range::Between(0, 1e6));
  a.head_dim_step = att.Get<int>("head_dim_step", a.head_dim_step, Range::Between(0, 256));
  a.head_dim_half = att.Get<double>("head_dim_half", a.head_dim_half, Range::Between(0, 1e4));
  if (att.Has("bwd_overhead_us")) a.bwd_overhead = Micros(att, "bwd_overhead_us", a.overhead);
  if (att.Has("bwd_kv_half"))
    a.bwd_kv_half = att.Get<double>("bwd_kv_half", a.kv_half, Range::Between(0, 1e6));
  if (att.Has("bwd_head_dim_half"))
    a.bwd_head_dim_half = att.Get<double>("bwd_head_dim_half", a.head_dim_half, Range::Between(0, 1e4));
  a.unfused = att.Get<bool>("unfused", a.unfused);
  att.Allow({"source", "fit_rows", "fit_mape_pct", "out_of_fold_rows", "out_of_fold_mape_pct"});
  att.Finish();
  return a;
}

// `attention_backends: {cudnn: {fwd_efficiency, bwd_efficiency, overhead_us}, ...}` and
// `pytorch_default: cudnn` of one architecture (cost::AttentionBackend names).
void ReadAttentionBackends(const MapReader& r, cost::ArchCalibration& a) {
  const MapReader backends = r.Section("attention_backends");
  for (const std::string& name : backends.Keys()) {
    const std::optional<cost::AttentionBackend> b = cost::ParseAttentionBackend(name);
    if (!b || *b == cost::AttentionBackend::kModel || *b == cost::AttentionBackend::kPytorchDefault) {
      backends.AddError(name, "expected an attention family: flash, cudnn, efficient, triton or math");
      continue;
    }
    a.attention_backends[*b] = ReadAttention(backends.Section(name), a.attention);
  }
  if (!r.Has("pytorch_default")) return;
  const std::string d = r.Get<std::string>("pytorch_default", "");
  const std::optional<cost::AttentionBackend> b = cost::ParseAttentionBackend(d);
  if (b && a.attention_backends.count(*b))
    a.pytorch_default = *b;
  else
    r.AddError("pytorch_default",
               "expected one of this architecture's attention_backends, found '" + d + "'");
}

// `gemm_alignment: {compute_exponent, memory_exponent, overhead_us, k_half, tiles_half, memory_overlap}`
// (cost::GemmAlignmentCalibration).
void ReadGemmAlignment(const MapReader& r, cost::GemmAlignmentCalibration& g) {
  const MapReader a = r.Section("gemm_alignment");
  g.compute_exponent = a.Get<double>("compute_exponent", g.compute_exponent, Range::Between(0, 4));
  g.memory_exponent = a.Get<double>("memory_exponent", g.memory_exponent, Range::Between(0, 4));
  g.overhead = Micros(a, "overhead_us", g.overhead);
  g.k_half = a.Get<double>("k_half", g.k_half, Range::NonNegative());
  g.tiles_half = a.Get<double>("tiles_half", g.tiles_half, Range::NonNegative());
  g.memory_overlap = a.Get<double>("memory_overlap", g.memory_overlap, kFraction);
  a.Allow({"source", "fit_rows", "fit_mape_pct", "fit_mape_before_pct"});
  a.Finish();
}

// `split_k: {overhead_us, min_k}` (cost::SplitKCalibration).
void ReadSplitK(const MapReader& r, cost::SplitKCalibration& s) {
  const MapReader k = r.Section("split_k");
  s.overhead = Micros(k, "overhead_us", s.overhead);
  s.min_k = k.Get<double>("min_k", s.min_k, Range::Between(0, 1e9));
  k.Finish();
}

// `gemm: {bf16: {max_efficiency, k_half, tiles_half, mem_efficiency}, ...}`: a curve per data type.
std::map<hw::DType, cost::GemmCalibration> ReadGemmCurves(const MapReader& r) {
  std::map<hw::DType, cost::GemmCalibration> out;
  const MapReader gemm = r.Section("gemm");
  for (hw::DType dt : hw::kAllDTypes) {
    const MapReader g = gemm.Section(hw::DTypeName(dt));
    if (!g.present()) continue;
    cost::GemmCalibration c;
    c.max_efficiency = g.Get<double>("max_efficiency", c.max_efficiency, kFraction);
    c.k_half = g.Get<double>("k_half", c.k_half, Range::NonNegative());
    c.tiles_half = g.Get<double>("tiles_half", c.tiles_half, Range::NonNegative());
    c.mem_efficiency = g.Get<double>("mem_efficiency", c.mem_efficiency, kFraction);
    g.Finish();
    out[dt] = c;
  }
  gemm.Finish();
  return out;
}

cost::ArchCalibration ReadArch(const MapReader& r, const std::string& name) {
  cost::ArchCalibration a;
  a.architecture = name;
  a.source = r.Get<std::string>("source", "");
  a.tile_m = r.Get<int>("tile_m", a.tile_m, Range::Between(8, 1024));
  a.tile_n = r.Get<int>("tile_n", a.tile_n, Range::Between(8, 1024));
  a.gemm_overhead = Micros(r, "gemm_overhead_us", a.gemm_overhead);
  a.gemm = ReadGemmCurves(r);
  ReadGemmAlignment(r, a.gemm_alignment);
  ReadSplitK(r, a.split_k);
  a.attention = ReadAttention(r.Section("attention"), a.attention);
  ReadAttentionBackends(r, a);
  const MapReader mem = r.Section("memory");
  a.memory.efficiency = mem.Get<double>("efficiency", a.memory.efficiency, kFraction);
  a.memory.norm_efficiency = mem.Get<double>("norm_efficiency", a.memory.norm_efficiency, kFraction);
  a.memory.optimizer_efficiency =
      mem.Get<double>("optimizer_efficiency", a.memory.optimizer_efficiency, kFraction);
  a.memory.gather_efficiency = mem.Get<double>("gather_efficiency", a.memory.gather_efficiency, kFraction);
  a.memory.copy_efficiency = mem.Get<double>("copy_efficiency", a.memory.copy_efficiency, kFraction);
  a.memory.permute_efficiency = mem.Get<double>("permute_efficiency", a.memory.permute_efficiency, kFraction);
  a.memory.overhead = Micros(mem, "overhead_us", a.memory.overhead);
  mem.Finish();
  ReadTile(r, a.tile);
  r.Finish();
  return a;
}

// One GPU's measured GEMM curve (cost::GpuGemmCalibration): `architecture`, `source`, `gemm_overhead_us`,
// `gemm`, `gemm_alignment` and `split_k` as an architecture's, all but gemm_alignment and split_k required.
cost::GpuGemmCalibration ReadGpuGemm(const MapReader& r, const std::string& name) {
  cost::GpuGemmCalibration g;
  g.gpu = name;
  g.architecture = r.Require<std::string>("architecture").value_or("");
  g.source = r.Require<std::string>("source").value_or("");
  g.gemm_overhead = Seconds(r.Require<double>("gemm_overhead_us", Range::NonNegative()).value_or(0) * 1e-6);
  g.gemm = ReadGemmCurves(r);
  if (g.gemm.empty()) r.AddError("gemm", "expected at least one data type's curve");
  ReadGemmAlignment(r, g.gemm_alignment);
  ReadSplitK(r, g.split_k);
  r.Allow({"command"});
  r.Finish();
  return g;
}

// The file's `gpus:` entries, each replacing an earlier entry of the same GPU.
void ReadGpuGemms(const MapReader& root, cost::ComputeCalibration& cal) {
  const MapReader gpus = root.Section("gpus");
  for (const std::string& name : gpus.Keys()) {
    std::erase_if(cal.gpu_gemms, [&](const cost::GpuGemmCalibration& g) { return g.gpu == name; });
    cal.gpu_gemms.push_back(ReadGpuGemm(gpus.Section(name), name));
  }
}

// An architecture `cal` has no entry for: its measured attention families kept as an overlay of the
// fallback (cost::ArchFamilyOverlay), merged family by family into an earlier overlay of the same
// architecture as a calibrated architecture's are. Nothing else (a GEMM alignment penalty) is invented for
// it.
void ReadFamilyOverlay(const MapReader& a, const std::string& name, cost::ComputeCalibration& cal) {
  if (!a.Has("attention_backends")) return;
  auto it = std::find_if(cal.family_overlays.begin(), cal.family_overlays.end(),
                         [&](const cost::ArchFamilyOverlay& o) { return o.architecture == name; });
  if (it == cal.family_overlays.end()) {
    it = cal.family_overlays.emplace(it);
    it->architecture = name;
  }
  cost::ArchCalibration measured;
  measured.attention_backends = it->attention_backends;
  measured.pytorch_default = it->pytorch_default;
  ReadAttentionBackends(a, measured);
  it->attention_backends = measured.attention_backends;
  it->pytorch_default = measured.pytorch_default;
  const std::string source = a.Get<std::string>("source", "");
  it->source += (it->source.empty() || source.empty() ? "" : "; ") + source;
}

}  // namespace

Result<cost::ComputeCalibration> ParseComputeCalibration(std::string_view yaml_text, std::string file_name) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(yaml_text, file_name));
  const MapReader root = doc.Root();
  cost::ComputeCalibration cal;
  cal.source = file_name;
  const MapReader archs = root.Section("architectures");
  for (const std::string& name : archs.Keys()) cal.archs.push_back(ReadArch(archs.Section(name), name));
  ReadGpuGemms(root, cal);
  root.Allow({"fit"});
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());
  return cal;
}

// The measured kernel constants of data/calibration/attention_backends*.yaml (attention families) and
// gemm_alignment.yaml merged into `cal`'s architectures; an architecture `cal` lacks keeps its attention
// families as an overlay of the fallback (ReadFamilyOverlay).
Status MergeMeasuredKernels(std::string_view yaml_text, const std::string& file_name,
                            cost::ComputeCalibration& cal) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(yaml_text, file_name));
  const MapReader root = doc.Root();
  const MapReader archs = root.Section("architectures");
  for (const std::string& name : archs.Keys()) {
    const MapReader a = archs.Section(name);
    a.Allow({"source", "command"});
    bool calibrated = false;
    for (cost::ArchCalibration& arch : cal.archs)
      if (arch.architecture == name) {
        ReadAttentionBackends(a, arch);
        ReadGemmAlignment(a, arch.gemm_alignment);
        calibrated = true;
      }
    if (!calibrated) ReadFamilyOverlay(a, name, cal);
    a.Finish();
  }
  ReadGpuGemms(root, cal);
  root.Allow({"fit"});
  root.Finish();
  return doc.status();
}

Result<cost::ComputeCalibration> LoadComputeCalibrationFile(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseComputeCalibration(text, path);
}

Result<cost::ComputeCalibration> LoadDefaultComputeCalibration() {
  DLSIM_ASSIGN_OR_RETURN(
      cost::ComputeCalibration cal,
      ParseComputeCalibration(embedded::ComputeCalibrationYaml(), "data/calibration/compute.yaml"));
  DLSIM_RETURN_IF_ERROR(MergeMeasuredKernels(embedded::AttentionBackendsYaml(),
                                             "data/calibration/attention_backends.yaml", cal));
  DLSIM_RETURN_IF_ERROR(MergeMeasuredKernels(embedded::AttentionBackendsA100Yaml(),
                                             "data/calibration/attention_backends_a100.yaml", cal));
  DLSIM_RETURN_IF_ERROR(MergeMeasuredKernels(embedded::AttentionBackendsB200Yaml(),
                                             "data/calibration/attention_backends_b200.yaml", cal));
  DLSIM_RETURN_IF_ERROR(
      MergeMeasuredKernels(embedded::GemmAlignmentYaml(), "data/calibration/gemm_alignment.yaml", cal));
  DLSIM_RETURN_IF_ERROR(
      MergeMeasuredKernels(embedded::GemmMeasuredYaml(), "data/calibration/gemm_measured.yaml", cal));
  DLSIM_ASSIGN_OR_RETURN(
      cost::TreeEnsemble learned,
      cost::ParseTreeEnsemble(embedded::LearnedGemmModelTxt(), "data/calibration/learned_gemm.txt"));
  cal.learned_gemm = std::make_shared<const cost::TreeEnsemble>(std::move(learned));
  return cal;
}

}  // namespace dlsim::io
