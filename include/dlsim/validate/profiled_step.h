// One training step as a profiler recorded it (a Kineto / Chrome trace that `torch.profiler` exports),
// reduced to what dlsim calibrates from: the framework operators that ran GPU work, with their input
// shapes and the GPU time of their kernels, the host's kernel launches, and the GPU's busy time. The
// reader is io/kineto_trace.h; trace_ops.h classifies the operators and trace_calibrate.h fits the stack's
// constants to them.
//
//   ProfiledStep s = *io::ReadKinetoTrace("step.json.gz");
//   for (const TracedOp& op : s.ops) ...   // aten::mm [[4096, 2048], [2048, 8192]] bf16, 0.21 ms GPU
//
// Times are microseconds on the trace's clock. Plain data, no behaviour.
#ifndef DLSIM_VALIDATE_PROFILED_STEP_H_
#define DLSIM_VALIDATE_PROFILED_STEP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlsim::validate {

// The innermost framework operator (`cpu_op`) that launched one or more kernels, memsets or copies.
struct TracedOp {
  std::string name;                        // "aten::mm", "aten::_cudnn_attention_backward", ...
  std::vector<std::vector<int64_t>> dims;  // "Input Dims", one list per input ([] for scalars)
  std::vector<std::string> types;          // "Input type": "c10::BFloat16", "float", "Scalar", ...
  std::vector<std::string> concrete;       // "Concrete Inputs" as recorded ("True", "2048", "")
  double cpu_start_us = 0;                 // when the host entered the operator
  int thread = 0;                          // host thread id (forward: main thread; backward: autograd)
  double gpu_us = 0;                       // sum of its kernels' (and memsets', copies') durations
  int kernels = 0;
  std::string first_kernel;  // the first kernel's name (tells the attention family)
};

// One host call that enqueues GPU work (cudaLaunchKernel, cuLaunchKernelEx, cudaMemsetAsync, ...).
struct TracedLaunch {
  double start_us = 0, dur_us = 0;
};

struct ProfiledStep {
  std::string file;                          // where it was read from; used in messages
  std::string device;                        // deviceProperties[0].name, e.g. "NVIDIA H200" ("" when absent)
  std::vector<TracedOp> ops;                 // in host start order
  std::vector<TracedLaunch> launches;        // in start order
  std::optional<bool> causal;                // is_causal of the step's scaled_dot_product_attention calls
  std::optional<double> optimizer_start_us;  // the first `Optimizer.step` annotation, when recorded
  double gpu_busy_us = 0;                    // union of kernel, memset and memcpy intervals
  double gpu_span_us = 0;                    // first GPU activity's start to the last one's end
  double unlinked_gpu_us = 0;  // GPU time of kernels no operator launched (collectives, other threads)
  int64_t kernels = 0;         // kernels, memsets and copies
};

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_PROFILED_STEP_H_
