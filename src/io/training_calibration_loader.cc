#include "dlsim/io/training_calibration_loader.h"

#include <fmt/core.h>

#include "dlsim/io/embedded.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/engine_profile.h"

namespace dlsim::io {
namespace {

const Range kFraction = Range{0, 1, true};  // (0, 1]

std::optional<double> Optional(const MapReader& r, const char* key) {
  if (!r.Has(key)) return std::nullopt;
  return r.Get<double>(key, 0.5, kFraction);
}

// `attention_backends: {cudnn: 0.95}`: forward efficiencies of measured attention families (calibrate
// --trace).
void ReadBackendEfficiencies(const MapReader& a, cost::ArchTrainingCalibration& t) {
  if (!a.Has("attention_backends")) return;
  const MapReader b = a.Section("attention_backends");
  for (const std::string& backend : b.Keys()) {
    const auto parsed = cost::ParseAttentionBackend(backend);
    const double eff = b.Get<double>(backend, 0.5, kFraction);
    if (parsed)
      t.attention_backend_efficiency[*parsed] = eff;
    else
      b.AddError(backend, "not a measured attention family; allowed: flash, cudnn, efficient, triton, math");
  }
  b.Finish();
}

}  // namespace

std::vector<cost::ArchTrainingCalibration> ReadTrainingArchitectures(const MapReader& archs) {
  std::vector<cost::ArchTrainingCalibration> out;
  for (const std::string& name : archs.Keys()) {
    const MapReader a = archs.Section(name);
    cost::ArchTrainingCalibration t;
    t.architecture = name;
    t.gemm_max_efficiency = Optional(a, "gemm_max_efficiency");
    t.fp8_gemm_max_efficiency = Optional(a, "fp8_gemm_max_efficiency");
    t.attention_efficiency = Optional(a, "attention_efficiency");
    t.elementwise_efficiency = Optional(a, "elementwise_efficiency");
    t.optimizer_efficiency = Optional(a, "optimizer_efficiency");
    t.copy_efficiency = Optional(a, "copy_efficiency");
    ReadBackendEfficiencies(a, t);
    a.Finish();
    out.push_back(t);
  }
  return out;
}

namespace {

// `serving_engines:` (dlsim calibrate --serve): per engine profile, the CPU times fitted to the user's runs.
std::vector<cost::EngineHostCalibration> ReadServingEngines(const MapReader& m) {
  std::vector<cost::EngineHostCalibration> out;
  for (const std::string& name : m.Keys()) {
    if (auto e = serve::FindEngine(name); !e.ok()) {
      m.AddError(name, e.error().message);
      continue;
    }
    const MapReader s = m.Section(name);
    cost::EngineHostCalibration c{name};
    const Range kUs = Range::Between(0, 1e7);
    for (auto [key, field] : {std::pair{"step_us", &cost::EngineHostCalibration::step_us},
                              {"per_request_us", &cost::EngineHostCalibration::per_request_us},
                              {"first_token_us", &cost::EngineHostCalibration::first_token_us},
                              {"stream_us", &cost::EngineHostCalibration::stream_us}})
      if (s.Has(key)) c.*field = s.Get<double>(key, 0, kUs);
    s.Finish();
    out.push_back(c);
  }
  return out;
}

}  // namespace

Result<cost::TrainingCalibration> ParseTrainingCalibration(std::string_view yaml_text,
                                                           std::string file_name) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(yaml_text, file_name));
  const MapReader root = doc.Root();
  cost::TrainingCalibration cal;
  cal.source = file_name;
  cal.archs = ReadTrainingArchitectures(root.Section("architectures"));
  const MapReader fw = root.Section("framework");
  if (fw.Has("layer_host_us")) {
    cal.layer_host_time = Seconds(fw.Get<double>("layer_host_us", 0, Range::Between(0, 1e6)) * 1e-6);
    cal.layer_host_source = file_name;
  }
  if (fw.Has("memory_overhead_gib"))
    cal.memory_overhead = GiB(fw.Get<double>("memory_overhead_gib", 0, Range::Between(0, 1024)));
  fw.Finish();
  if (root.Has("interval")) {
    const MapReader iv = root.Section("interval");
    cost::CalibratedInterval c;
    c.architecture = iv.Require<std::string>("architecture").value_or("");
    c.low = iv.Get<double>("low", 1, Range::Positive(1));
    c.high = iv.Get<double>("high", 1, Range::Between(1, 100));
    c.runs = iv.Get<int>("runs", 0, Range::NonNegative());
    iv.Finish();
    cal.interval = c;
  }
  if (root.Has("serving_engines")) cal.serving_engines = ReadServingEngines(root.Section("serving_engines"));
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());
  return cal;
}

Result<cost::TrainingCalibration> LoadDefaultTrainingCalibration() {
  return ParseTrainingCalibration(embedded::TrainingCalibrationYaml(), cost::kShippedTrainingFile);
}

std::string FormatTrainingCalibration(const cost::TrainingCalibration& cal, const std::string& header) {
  std::string out = header;
  if (!cal.archs.empty()) out += "architectures:\n";
  for (const auto& a : cal.archs) {
    out += "  " + a.architecture + ":\n";
    if (a.gemm_max_efficiency)
      out += fmt::format("    gemm_max_efficiency: {:.4f}\n", *a.gemm_max_efficiency);
    if (a.fp8_gemm_max_efficiency)
      out += fmt::format("    fp8_gemm_max_efficiency: {:.4f}\n", *a.fp8_gemm_max_efficiency);
    if (a.attention_efficiency)
      out += fmt::format("    attention_efficiency: {:.4f}\n", *a.attention_efficiency);
    if (a.elementwise_efficiency)
      out += fmt::format("    elementwise_efficiency: {:.4f}\n", *a.elementwise_efficiency);
    if (a.optimizer_efficiency)
      out += fmt::format("    optimizer_efficiency: {:.4f}\n", *a.optimizer_efficiency);
    if (a.copy_efficiency) out += fmt::format("    copy_efficiency: {:.4f}\n", *a.copy_efficiency);
    if (!a.attention_backend_efficiency.empty()) out += "    attention_backends:\n";
    for (const auto& [backend, eff] : a.attention_backend_efficiency)
      out += fmt::format("      {}: {:.4f}\n", cost::AttentionBackendName(backend), eff);
  }
  if (cal.layer_host_time || cal.memory_overhead) out += "framework:\n";
  if (cal.layer_host_time) out += fmt::format("  layer_host_us: {:.1f}\n", cal.layer_host_time->ToMicros());
  if (cal.memory_overhead)
    out += fmt::format("  memory_overhead_gib: {:.3f}\n", cal.memory_overhead->ToGiB());
  if (cal.interval)
    out += fmt::format(
        "interval:  # 10th-90th percentile of measured / predicted, leave-one-run-out\n  architecture: {}\n"
        "  low: {:.4f}\n  high: {:.4f}\n  runs: {}\n",
        cal.interval->architecture, cal.interval->low, cal.interval->high, cal.interval->runs);
  if (!cal.serving_engines.empty()) out += "serving_engines:\n";
  for (const cost::EngineHostCalibration& e : cal.serving_engines) {
    out += "  " + e.engine + ":\n";
    if (e.step_us) out += fmt::format("    step_us: {:.1f}\n", *e.step_us);
    if (e.per_request_us) out += fmt::format("    per_request_us: {:.2f}\n", *e.per_request_us);
    if (e.first_token_us) out += fmt::format("    first_token_us: {:.1f}\n", *e.first_token_us);
    if (e.stream_us) out += fmt::format("    stream_us: {:.1f}\n", *e.stream_us);
  }
  return out;
}

Result<cost::TrainingCalibration> LoadTrainingCalibrationFile(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseTrainingCalibration(text, path);
}

}  // namespace dlsim::io
