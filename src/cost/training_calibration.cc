#include "dlsim/cost/training_calibration.h"

#include <algorithm>

namespace dlsim::cost {

namespace {

// A training calibration's GEMM rates also replace those a GPU of its architecture measured on its own
// (ComputeCalibration::gpu_gemms): the calibration was fitted over whichever curve that GPU used.
void ApplyToGpuGemms(const ArchTrainingCalibration& t, std::vector<GpuGemmCalibration>& gpus) {
  for (GpuGemmCalibration& g : gpus) {
    if (g.architecture != t.architecture) continue;
    for (auto& [dt, curve] : g.gemm) {
      const bool half = dt == hw::DType::kFp16 || dt == hw::DType::kBf16;
      if (dt == hw::DType::kFp8 && t.fp8_gemm_max_efficiency)
        curve.max_efficiency = *t.fp8_gemm_max_efficiency;
      if (half && t.gemm_max_efficiency) curve.max_efficiency = *t.gemm_max_efficiency;
    }
  }
}

// One architecture's entry with `t`'s constants laid over it.
void ApplyToArch(const ArchTrainingCalibration& t, ArchCalibration& a) {
  if (t.gemm_max_efficiency) {
    for (hw::DType dt : {hw::DType::kFp16, hw::DType::kBf16}) {
      GemmCalibration g = a.Gemm(dt);
      g.max_efficiency = *t.gemm_max_efficiency;
      a.gemm[dt] = g;
    }
  }
  if (t.fp8_gemm_max_efficiency) {
    GemmCalibration g = a.Gemm(hw::DType::kFp8);
    g.max_efficiency = *t.fp8_gemm_max_efficiency;
    a.gemm[hw::DType::kFp8] = g;
  }
  if (t.elementwise_efficiency) a.memory.efficiency = *t.elementwise_efficiency;
  if (t.optimizer_efficiency) a.memory.optimizer_efficiency = *t.optimizer_efficiency;
  if (t.copy_efficiency) a.memory.copy_efficiency = *t.copy_efficiency;
  if (t.attention_efficiency) {
    const double ratio = a.attention.bwd_efficiency / a.attention.fwd_efficiency;
    a.attention.fwd_efficiency = *t.attention_efficiency;
    a.attention.bwd_efficiency = *t.attention_efficiency * ratio;
  }
  for (const auto& [backend, eff] : t.attention_backend_efficiency) {
    auto it = a.attention_backends.find(backend);
    if (it == a.attention_backends.end()) continue;
    const double ratio = it->second.bwd_efficiency / it->second.fwd_efficiency;
    it->second.fwd_efficiency = eff;
    it->second.bwd_efficiency = eff * ratio;
  }
}

}  // namespace

ComputeCalibration TrainingCalibration::Apply(const ComputeCalibration& kernel,
                                              const hw::GpuSpec* gpu) const {
  ComputeCalibration out = kernel;
  for (const ArchTrainingCalibration& t : archs) {
    ApplyToGpuGemms(t, out.gpu_gemms);
    for (ArchCalibration& a : out.archs)
      if (a.architecture == t.architecture) ApplyToArch(t, a);
  }
  if (gpu == nullptr || out.FindArchOrNull(gpu->architecture) != nullptr) return out;
  // The GPU's architecture has no entry: its fallback as it prices uncalibrated (the mean of the others
  // with their constants applied), then this file's constants for it, if any.
  ArchCalibration own = ArchOrFallback(*gpu, out);
  bool set = false;
  for (const ArchTrainingCalibration& t : archs) {
    if (t.architecture != gpu->architecture) continue;
    ApplyToArch(t, own);
    set = true;
  }
  if (set) out.archs.push_back(std::move(own));
  return out;
}

std::optional<double> TrainingCalibration::ArchValue(
    const std::string& arch, std::optional<double> ArchTrainingCalibration::*field) const {
  for (const ArchTrainingCalibration& a : archs)
    if (a.architecture == arch && (a.*field).has_value()) return a.*field;
  return std::nullopt;
}

TrainingCalibration Overlay(const TrainingCalibration& base, const TrainingCalibration& over) {
  using A = ArchTrainingCalibration;
  TrainingCalibration out = base;
  out.source = base.source + " + " + over.source;
  for (const A& o : over.archs) {
    auto it = std::find_if(out.archs.begin(), out.archs.end(),
                           [&](const A& a) { return a.architecture == o.architecture; });
    if (it == out.archs.end()) {
      A fresh;
      fresh.architecture = o.architecture;
      it = out.archs.insert(out.archs.end(), fresh);
    }
    for (auto field : {&A::gemm_max_efficiency, &A::fp8_gemm_max_efficiency, &A::attention_efficiency,
                       &A::elementwise_efficiency, &A::optimizer_efficiency, &A::copy_efficiency})
      if ((o.*field).has_value()) (*it).*field = o.*field;
    for (const auto& [backend, eff] : o.attention_backend_efficiency)
      it->attention_backend_efficiency[backend] = eff;
  }
  if (over.layer_host_time) {
    out.layer_host_time = over.layer_host_time;
    out.layer_host_source = over.source;
  }
  if (over.memory_overhead) out.memory_overhead = over.memory_overhead;
  if (over.interval) out.interval = over.interval;
  for (const EngineHostCalibration& e : over.serving_engines) {
    auto it = std::find_if(out.serving_engines.begin(), out.serving_engines.end(),
                           [&](const EngineHostCalibration& x) { return x.engine == e.engine; });
    if (it == out.serving_engines.end())
      it = out.serving_engines.insert(out.serving_engines.end(), {e.engine});
    for (auto field : {&EngineHostCalibration::step_us, &EngineHostCalibration::per_request_us,
                       &EngineHostCalibration::first_token_us, &EngineHostCalibration::stream_us})
      if ((e.*field).has_value()) (*it).*field = e.*field;
  }
  return out;
}

}  // namespace dlsim::cost
