// The training-step time of a multi-task schedule (wavefront.h): its waves, the input movement
// between them, and the parameter synchronisation of every module, plus the device utilisation and
// the memory a device holds.
//
// Step = sum over waves of (forward + backward of its longest slices) + 2 x its input movement +
// synchronisation. Synchronisation (Spindle's runtime, and data-parallel gradient all-reduce of the
// baseline alike): every layer of every module is held by the devices of every slice that ran it (for
// any task); its fp32 gradients are all-reduced over them once per step. Layers with the same holders
// and smallest tensor-parallel size t are bucketed: one all-reduce of their gradients / t over
// |holders| / t ranks (t groups in parallel), priced by the collective model; buckets run one after
// another, after the backward (not overlapped, in both schedules).
// Memory per device: for every layer it holds, bf16 weights and fp32 gradients of its shard (1/t)
// and its share of the fp32 master weights and Adam moments (12 bytes per parameter, distributed over
// the holders); plus the activations of every slice it ran, all alive at the end of the forward (with
// Schedule::task_by_task, those of the task whose are largest there). It fits when it is at most the
// GPU's memory less the framework's overhead (train::StepContext).
//
// Pure function, thread-safe.
#ifndef DLSIM_STUDIES_MULTITASK_STEP_COST_H_
#define DLSIM_STUDIES_MULTITASK_STEP_COST_H_

#include "dlsim/core/units.h"
#include "dlsim/studies/multitask/wavefront.h"

namespace dlsim::multitask {

struct StepCost {
  Duration step;
  Duration compute;   // sum of the waves' forward and backward
  Duration transfer;  // input movement, both passes
  Duration sync;      // parameter synchronisation
  int waves = 0;
  int sync_buckets = 0;
  Bytes moved;        // both passes
  double busy = 0;    // device-seconds computing a slice / (budget x step)
  double mfu = 0;     // model FLOPs / (budget x peak x step); 0 without a context
  Bytes peak_memory;  // the most one device holds
  int peak_device = 0;
  Bytes memory_limit;  // GPU memory less the framework overhead; 0 without a context
  bool fits = true;    // peak_memory <= memory_limit (true without a context)
};

StepCost Evaluate(const SchedulerInputs& in, const Schedule& s);

}  // namespace dlsim::multitask

#endif  // DLSIM_STUDIES_MULTITASK_STEP_COST_H_
