// End-to-end calibration of the training simulator: the few constants that kernel profiles
// of inference-sized operators (data/calibration/compute.yaml) cannot pin down, fitted on the
// training calibration sets (data/validation/) by `dlsim-fit training`.
//
//   - gemm_max_efficiency: the asymptotic fraction of tensor-core peak of large training GEMMs
//     (m = thousands of tokens, n, k = hidden sizes), which inference profiles never reach;
//   - fp8_gemm_max_efficiency: the same for FP8 GEMMs (Transformer Engine);
//   - elementwise_efficiency: HBM bandwidth fraction of large elementwise kernels;
//   - attention_efficiency: the fraction of peak of the training attention kernels (cuDNN /
//     FlashAttention-2/3 forward; the backward keeps the profiled bwd/fwd ratio);
//   - layer_host_time: the host (CPU) time a framework takes to issue one layer's forward
//     kernels, which bounds small layers (train/chunk_cost.cc);
//   - memory_overhead: memory a framework needs per GPU besides the model's tensors (CUDA
//     context, library workspaces, allocator fragmentation); train::StepContext's 2 GiB when absent.
// Each is optional: an absent constant keeps the kernel-level value. A user's calibration file
// (`dlsim calibrate`, `--calibration FILE`) sets only the constants fitted to their runs and is
// laid over the shipped one with Overlay.
#ifndef DLSIM_COST_TRAINING_CALIBRATION_H_
#define DLSIM_COST_TRAINING_CALIBRATION_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/cost/compute_calibration.h"

namespace dlsim::cost {

// The name the shipped end-to-end calibration (data/calibration/training.yaml, embedded) is loaded under.
inline constexpr char kShippedTrainingFile[] = "data/calibration/training.yaml";

struct ArchTrainingCalibration {
  std::string architecture;  // "ampere", "hopper", ...
  std::optional<double> gemm_max_efficiency;
  std::optional<double> fp8_gemm_max_efficiency;
  std::optional<double> attention_efficiency;
  // Fraction of HBM bandwidth of large fused elementwise kernels (bias-dropout-add, softmax,
  // activations), which inference-sized kernels do not reach.
  std::optional<double> elementwise_efficiency;
  // Fraction of HBM bandwidth of the optimizer step; unset: elementwise_efficiency's (or the shipped) rate.
  // The eager stacks carry the rate their traces measured (stacks.yaml, scripts/trace-optimizer-rate.py), so
  // that an elementwise rate fitted on eager kernels does not reach the fused optimizer.
  std::optional<double> optimizer_efficiency;
  // Fraction of HBM bandwidth of whole contiguous tensors copied or cast (autocast's weight and gradient
  // casts); unset: elementwise_efficiency's (or the shipped) rate.
  std::optional<double> copy_efficiency;
  // Forward efficiency of a measured attention kernel family (data/calibration/attention_backends.yaml),
  // as `dlsim calibrate --trace` fits it; its backward keeps the family's bwd / fwd ratio.
  std::map<AttentionBackend, double> attention_backend_efficiency;
};

// The interval a user calibration measured for itself (`dlsim calibrate`: the 10th and 90th
// percentiles of measured / predicted over its leave-one-run-out predictions), for its architecture.
struct CalibratedInterval {
  std::string architecture;
  double low = 1, high = 1;
  int runs = 0;
};

// A serving engine's CPU time fitted to the user's own runs (`dlsim calibrate --serve`; a calibration file's
// `serving_engines:` section): laid over the engine profile's values (serve/engine_host.h), under the keys a
// scenario's `engine_host:` gives. Unset: the profile's value. `dlsim calibrate --serve` fits the step, the
// per-request time and the first-token path; stream_us (the serving path per streamed chunk) is only ever
// written by hand (0 for a stack whose frontend does not share the engine's process).
struct EngineHostCalibration {
  std::string engine;  // an engine profile's name (serve/engine_profile.h)
  std::optional<double> step_us, per_request_us, first_token_us, stream_us;
};

struct TrainingCalibration {
  std::string source;
  std::vector<EngineHostCalibration> serving_engines;
  std::vector<ArchTrainingCalibration> archs;
  std::optional<Duration> layer_host_time;
  std::string layer_host_source;  // the file that set layer_host_time
  std::optional<Bytes> memory_overhead;
  std::optional<CalibratedInterval> interval;

  // The kernel-level calibration with this file's constants applied to the architectures it calibrates.
  // With `gpu`, constants for an architecture `kernel` has no entry for (Blackwell) reach that GPU too: its
  // entry is added, the fallback it is priced with uncalibrated (cost::ArchOrFallback over the other
  // architectures with their constants applied) with this file's constants over it. The result is then for
  // pricing that GPU only (the added entry joins the fallback mean of other uncalibrated architectures).
  ComputeCalibration Apply(const ComputeCalibration& kernel, const hw::GpuSpec* gpu = nullptr) const;
  // The constant `field` of architecture `arch`, when this calibration sets it.
  std::optional<double> ArchValue(const std::string& arch,
                                  std::optional<double> ArchTrainingCalibration::*field) const;
};

// `base` with every constant that `over` sets replaced by over's (per architecture and key); the
// source names both files.
TrainingCalibration Overlay(const TrainingCalibration& base, const TrainingCalibration& over);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_TRAINING_CALIBRATION_H_
