#include "dlsim/validate/trace_compare.h"

#include <fmt/core.h>

#include <array>
#include <cmath>

#include "dlsim/validate/trace_calibrate.h"
#include "dlsim/validate/trace_ops.h"

namespace dlsim::validate {
namespace {

using Ms = std::array<double, kNumTraceCategories>;

double Of(const Ms& ms, TraceCategory c) { return ms[static_cast<size_t>(c)]; }

// The rows of trace_compare.h's table, in its order.
std::vector<CompareRow> Rows(const ProfiledStep& step, const train::StepResult& r) {
  const Ms t = GpuMsByCategory(step);
  const train::Breakdown& b = r.breakdown;
  const double kinds = b.gemm_s + b.attention_s + b.memory_s + b.host_wait_s;
  const double comm = b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.dp_comm_s + b.param_gather_s;
  using C = TraceCategory;
  return {
      {"gemm", Of(t, C::kGemm), 1e3 * b.gemm_s},
      {"attention", Of(t, C::kAttentionForward) + Of(t, C::kAttentionBackward), 1e3 * b.attention_s},
      // autocast's casts run (and are traced) as copies in the passes; dlsim prices them with the optimizer
      {"memory-bound", Of(t, C::kElementwise) + Of(t, C::kNorm) + Of(t, C::kLoss),
       1e3 * (b.memory_s + b.cast_s)},
      {"optimizer", Of(t, C::kOptimizer), 1e3 * (b.optimizer_s - b.cast_s)},
      {"communication", Of(t, C::kCommunication) + step.unlinked_gpu_us / 1e3, 1e3 * comm},
      {"other kernels", Of(t, C::kOther), 1e3 * std::max(0.0, b.compute_s - kinds)},
      {"GPU idle", (step.gpu_span_us - step.gpu_busy_us) / 1e3, 1e3 * (b.host_wait_s + b.pp_bubble_s)},
      {"step", step.gpu_span_us / 1e3, 1e3 * r.step_time_s},
  };
}

// The GPU the trace ran on against the scenario's, when they differ or the trace's is unknown.
std::optional<std::string> GpuNote(const ProfiledStep& step, const train::TrainOptions& o,
                                   const hw::Catalog& hardware) {
  auto traced = TraceGpu({step}, hardware, "");
  auto scenario = hardware.FindGpu(o.hardware.gpu);
  if (!traced.ok())
    return fmt::format(
        "the trace's device '{}' is not in the GPU catalog: the comparison assumes it is the "
        "scenario's {}",
        step.device, o.hardware.gpu);
  if (scenario.ok() && *traced != *scenario)
    return fmt::format("the trace ran on {} ({}), the scenario on {}: compare on the same GPU",
                       (*traced)->name, step.device, (*scenario)->name);
  return std::nullopt;
}

// Layer passes and recomputation: the trace's attention calls against the scenario's critical rank.
std::vector<std::string> StructureNotes(const ProfiledStep& step, const train::TrainOptions& o,
                                        const train::StepResult& r) {
  std::vector<std::string> notes;
  const HostTiming h = MeasureHost(step);
  const int layers = r.memory.empty() ? 0 : r.memory[r.critical_rank].layers;
  const int64_t passes = static_cast<int64_t>(layers) * r.plan.micro_batches;
  if (h.layers > 0 && layers > 0 && h.layers != passes)
    notes.push_back(
        fmt::format("the trace ran {} layer backward passes (attention backward calls), the scenario prices "
                    "{} ({} layers "
                    "x {} micro-batches): is it the same model, batch and micro-batch size?",
                    h.layers, passes, layers, r.plan.micro_batches));
  if (step.gpu_span_us > 0 && step.gpu_busy_us < 0.8 * step.gpu_span_us)
    notes.push_back(fmt::format(
        "the GPU idled {:.0f}% of the traced step: the host set the pace, and a profiled host is slower than "
        "an "
        "unprofiled one (the profiler's own overhead per operator), so the trace overstates an untraced "
        "step's idle time",
        100 * (1 - step.gpu_busy_us / step.gpu_span_us)));
  const train::Recompute mode = o.parallel.recompute;
  if (h.recompute && mode != train::Recompute::kFull)
    notes.push_back(fmt::format(
        "the trace re-runs each layer's forward in the backward (attention forward twice per layer); the "
        "scenario's recompute is '{}': set parallel.recompute: full",
        train::RecomputeName(mode)));
  if (h.layers > 0 && !h.recompute && mode == train::Recompute::kFull)
    notes.push_back("the scenario recomputes every layer (recompute: full); the trace does not");
  return notes;
}

std::string Largest(const std::vector<CompareRow>& rows) {
  const CompareRow* top = nullptr;
  for (size_t i = 0; i + 2 < rows.size(); ++i)  // the categories, not idle or the step
    if (!top || std::abs(rows[i].dlsim_ms - rows[i].trace_ms) > std::abs(top->dlsim_ms - top->trace_ms))
      top = &rows[i];
  if (!top) return "";
  const double d = top->dlsim_ms - top->trace_ms;
  return fmt::format("largest difference: {} ({:+.2f} ms: dlsim {} than the trace)", top->name, d,
                     d < 0 ? "faster" : "slower");
}

}  // namespace

std::optional<double> CompareRow::DiffPct() const {
  if (trace_ms < 1e-3) return std::nullopt;
  return 100.0 * (dlsim_ms - trace_ms) / trace_ms;
}

TraceComparison CompareWithTrace(const ProfiledStep& step, const train::TrainOptions& o,
                                 const train::StepResult& r, const hw::Catalog& hardware) {
  TraceComparison c;
  c.file = step.file;
  c.device = step.device;
  if (!(r.step_time_s > 0)) {
    c.notes.push_back("no step to compare: " + (r.reason.empty() ? "nothing was simulated" : r.reason));
    return c;
  }
  c.rows = Rows(step, r);
  if (auto gpu = GpuNote(step, o, hardware)) c.notes.push_back(*gpu);
  for (std::string& n : StructureNotes(step, o, r)) c.notes.push_back(std::move(n));
  c.largest = Largest(c.rows);
  return c;
}

}  // namespace dlsim::validate
