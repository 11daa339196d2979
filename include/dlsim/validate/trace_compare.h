// dlsim's step beside a profiled one (`dlsim train SCENARIO --compare-trace STEP.json[.gz]`): the trace's GPU
// time by category (trace_ops.h) and dlsim's critical-rank breakdown (train::Breakdown, with compute split by
// operator kind) in the same rows, so a user sees where the model and their run disagree before calibrating.
//
//   TraceComparison c = CompareWithTrace(*io::ReadKinetoTrace("step.json.gz"), options, result, hardware);
//   for (const CompareRow& row : c.rows) ...   // "gemm": trace 41.2 ms, dlsim 38.0 ms
//   c.notes                                   // "the trace ran 16 layers' backward, the scenario 32"
//
// Rows, in ms per step (trace: one GPU's kernels; dlsim: the critical pipeline rank):
//   gemm           trace gemm                              dlsim Breakdown::gemm_s
//   attention      trace attention_fwd + attention_bwd     dlsim attention_s
//   memory-bound   trace elementwise + norm + loss         dlsim memory_s (norms, activations, adds, rotary,
//                                                          the embedding gather, the loss)
//   optimizer      trace optimizer                         dlsim optimizer_s
//   communication  trace communication + kernels no        dlsim exposed tp + cp + ep + dp + parameter gather
//                  operator launched (NCCL's own streams)
//   other kernels  trace other (embeddings, gathers, ...)  dlsim compute not in the four kinds (encoders)
//   GPU idle       trace span - busy                       dlsim host_wait_s + pp_bubble_s
//   step           trace GPU span                          dlsim step_time_s
// The trace's categories may overlap in time (communication on its own stream), so they need not add up to
// its span; dlsim's do. Pure computation.
#ifndef DLSIM_VALIDATE_TRACE_COMPARE_H_
#define DLSIM_VALIDATE_TRACE_COMPARE_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/hw/catalog.h"
#include "dlsim/train/options.h"
#include "dlsim/train/step_model.h"
#include "dlsim/validate/profiled_step.h"

namespace dlsim::validate {

struct CompareRow {
  std::string name;  // "gemm", "attention", "memory-bound", "optimizer", "communication", ...
  double trace_ms = 0, dlsim_ms = 0;
  // (dlsim - trace) / trace in %, or nullopt when the trace has (almost) none of it.
  std::optional<double> DiffPct() const;
};

struct TraceComparison {
  std::string file, device;      // the trace, and its device as recorded
  std::vector<CompareRow> rows;  // the categories above, in that order
  // Where the trace and the scenario differ in structure, in words: the GPU, the layer passes (attention
  // backward calls vs layers x micro-batches on the critical rank), recomputation; and a host-bound trace
  // (GPU idle over 20% of its span), whose idle time the profiler's own overhead inflates. Empty: nothing to
  // say.
  std::vector<std::string> notes;
  // The row with the largest absolute difference among the categories (not idle or the step), in words.
  std::string largest;
};

// Errors: none; a result without a simulated step (step_time_s 0: an infeasible layout) gives no rows and a
// note saying why.
TraceComparison CompareWithTrace(const ProfiledStep& step, const train::TrainOptions& o,
                                 const train::StepResult& r, const hw::Catalog& hardware);

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_TRACE_COMPARE_H_
