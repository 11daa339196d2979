// Learning a stack from profiled steps (`dlsim calibrate --trace STEP.json.gz ...`): every traced GEMM,
// attention and elementwise call is priced by dlsim's compute model on the same shapes, and each family's
// constant is set so that dlsim's time for the family's calls matches the measured time, each trace counted
// once (the geometric mean over the traces of dlsim's total / the measured total is 1: within a trace the
// large calls, where the step spends its time, dominate, and a long step does not outvote a short one);
// the host's time per layer is measured between
// consecutive layers' attention calls (trace_ops.h, MeasureHost). The result is a calibration file that
// `train`, `plan` and `validate` lay over the shipped constants (`--calibration FILE`).
//
//   std::vector<ProfiledStep> steps = {*io::ReadKinetoTrace("a.json.gz")};
//   Result<TraceCalibrateResult> r = CalibrateFromTraces(steps, catalogs, "h200");
//   r->calibration   // gemm_max_efficiency, attention_backends.cudnn, elementwise_efficiency, layer_host_us
//
// The constants: `gemm` (bf16 / fp16 GEMMs) and `fp8_gemm`, the attention efficiency of the family the
// trace ran (a measured family, data/calibration/attention_backends.yaml: its forward efficiency, the
// backward keeping its measured ratio; otherwise the architecture's `attention`), `elementwise` (HBM
// fraction of elementwise kernels, their bytes read from the operators' input shapes) and `host` (host
// time per layer = (forward gap + backward gap) / 3, or / 4 with recomputation, the mean over the traces
// where the host was measurable). The optimizer's rate is not written (the trace records no sizes for the
// optimizer's tensor lists): the eager stacks carry the rate their traces measured (stacks.yaml
// `optimizer_efficiency`), which a fitted elementwise rate does not reach; a stack without one prices the
// optimizer at the elementwise rate. Each is
// bisected within its bounds (StackConstants()); a family with no priced call is not fitted. Pure
// computation.
#ifndef DLSIM_VALIDATE_TRACE_CALIBRATE_H_
#define DLSIM_VALIDATE_TRACE_CALIBRATE_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/validate/trace_ops.h"

namespace dlsim::validate {

// One fitted family: dlsim's time for its traced calls with the shipped and the fitted constant.
struct TraceFamilyFit {
  std::string constant;  // "gemm", "fp8_gemm", "attention cudnn", "attention", "elementwise"
  int calls = 0;         // priced calls, all traces
  double measured_ms = 0, shipped_ms = 0, fitted_ms = 0;  // sums over those calls
  double mape_shipped = 0, mape_fitted = 0;               // per call, %
  double start = 0, value = 0;
  bool at_bound = false;
};

// One trace's GPU time by category, and its host timing.
struct TraceSummary {
  std::string file;
  std::array<double, kNumTraceCategories> category_ms{};  // GPU time of the operators of each category
  double priced_ms = 0;                                   // of it: calls dlsim priced (ToKernelOp)
  double unlinked_ms = 0, gpu_busy_ms = 0, gpu_span_ms = 0;
  HostTiming host;
};

struct TraceCalibrateResult {
  std::string gpu, architecture;
  std::vector<TraceSummary> traces;
  std::vector<TraceFamilyFit> fits;
  std::optional<double> host_us;  // fitted host time per layer, when measurable
  double host_shipped_us = 0;
  cost::TrainingCalibration calibration;  // the fitted constants only
};

// The GPU of the traces: `gpu_name` (a catalog name or alias) when given, else from the traces' device
// name ("NVIDIA H200" -> h200). Errors: traces of different devices; a device the catalog lacks (naming
// it, and asking for --gpu); no trace.
Result<const hw::GpuSpec*> TraceGpu(const std::vector<ProfiledStep>& steps, const hw::Catalog& hardware,
                                    const std::string& gpu_name);

// Errors: no trace; no family with a priced call; a compute-model error.
Result<TraceCalibrateResult> CalibrateFromTraces(const std::vector<ProfiledStep>& steps,
                                                 const catalog::Catalogs& catalogs, const hw::GpuSpec& gpu);

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_TRACE_CALIBRATE_H_
