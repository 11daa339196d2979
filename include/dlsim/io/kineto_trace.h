// Reads a profiled training step: the Kineto / Chrome trace JSON that `torch.profiler` exports
// (`prof.export_chrome_trace("step.json")`), plain or gzipped (`.json.gz`, told by its magic bytes).
//
//   Result<validate::ProfiledStep> s = io::ReadKinetoTrace("step.json.gz");
//
// What is read (validate/profiled_step.h): `cpu_op` events (name, "Input Dims", "Input type", "Concrete
// Inputs", host thread), `kernel` / `gpu_memset` / `gpu_memcpy` events, each joined to the operator that
// launched it by "External id"; the host's launch calls (`cuda_runtime` / `cuda_driver` events whose name
// holds Launch, Memset or Memcpy); the first `Optimizer.step` annotation; deviceProperties[0].name.
// Profile one step with record_shapes=True and both CPU and CUDA activities.
//
// Errors (kInvalidArgument, naming the file): not gzip / JSON (with line and column), no `traceEvents`
// list, an event whose `ts` or `dur` is not a number (naming its index and name), no GPU kernels
// (CUDA activity not profiled), operators without input shapes (record_shapes=False). Files: the
// compressed file within io::MaxInputFileBytes(), the JSON within 16 x that (256 MiB by default).
#ifndef DLSIM_IO_KINETO_TRACE_H_
#define DLSIM_IO_KINETO_TRACE_H_

#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/validate/profiled_step.h"

namespace dlsim::io {

Result<validate::ProfiledStep> ReadKinetoTrace(const std::string& path);
// Parses the (decompressed) JSON text; `file_name` names it in errors.
Result<validate::ProfiledStep> ParseKinetoTrace(std::string_view json_text, const std::string& file_name);

}  // namespace dlsim::io

#endif  // DLSIM_IO_KINETO_TRACE_H_
