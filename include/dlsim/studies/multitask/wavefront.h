// Spindle's wavefront scheduler, and the sequential baseline it is compared with.
//
// A schedule is a sequence of waves; a wave runs slices (consecutive layers of one MetaOp) side by
// side on disjoint, contiguous device ranges, and the next wave starts when the whole wave is done.
// The forward pass runs the waves in order, the backward pass in reverse (so every dependency that the
// forward respects, the backward respects reversed).
//
// Wavefront (greedy, one wave at a time):
//   1. ready = MetaOps with layers left whose predecessors are finished, by bottom level (the op's
//      time on all devices plus its longest path to a sink; ties by id); at most `budget` of them.
//   2. the malleable allocator (allocator.h) gives each the devices minimising the makespan of its
//      remaining layers run side by side.
//   3. the wave is cut when the first of them finishes (D = the smallest allocated time): every other
//      op runs the whole number of layers nearest D (round(D / its layer time), so the wave lasts at
//      most half a layer past D, and any device that finishes early idles until the longest slice
//      ends); an op whose layer is over twice D sits the wave out. Each wave finishes at least one
//      MetaOp, so there are at most as many waves as MetaOps.
//   4. placement: every TP group starts at a multiple of its size (so it stays inside a node). With
//      kMinMovement the candidates are three node-aware packings (largest slice first; slices that
//      continue an op first; the slices of the module taking the most devices first, together), each
//      slice at the aligned hole spanning
//      the fewest nodes, then adding the fewest nodes to those already holding its module, then
//      moving its inputs fastest; and contiguous layouts by TP size (by id, by where each
//      slice's inputs are, by reversed id; from either end). The winner: fewest nodes spanned beyond
//      need, then fewest nodes added to the modules' holders (a module's gradients are reduced over
//      every device that ran it: inside one node that is NVLink, across nodes a few NICs), then the
//      shortest input movement, then the fewest bytes moved. kInOrder: the contiguous layout by TP
//      size then id from device 0.
// Input movement: a slice reads its own previous slice's boundary activation, or its predecessors'
// outputs (samples x tokens x hidden x 2 bytes), from the devices that made them; the share not
// already on the right device, |src & dst| / max(|src|, |dst|) being local, crosses min(|src|, |dst|)
// point-to-point links (NVLink inside one node, else the NICs). A wave's transfer is its slowest
// slice's; the backward sends activation gradients back the same way.
//
// Sequential (Megatron-LM / DeepSpeed style): the tasks one after another, each task's MetaOps in
// order, each alone in its wave on the configuration its curve picks for the whole budget.
//
//   multitask::SchedulerInputs in{&workload, &graph, &curves, 64, &ctx, multitask::Placement::kMinMovement};
//   multitask::Schedule s = *multitask::WavefrontSchedule(in);
//   DLSIM_RETURN_IF_ERROR(multitask::CheckSchedule(graph, s));
//
// Functions thread-safe; deterministic.
#ifndef DLSIM_STUDIES_MULTITASK_WAVEFRONT_H_
#define DLSIM_STUDIES_MULTITASK_WAVEFRONT_H_

#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/studies/multitask/scalability.h"
#include "dlsim/studies/multitask/workload.h"
#include "dlsim/train/step_context.h"

namespace dlsim::multitask {

struct DeviceRange {
  int begin = 0, count = 0;  // devices [begin, begin + count)
  int end() const { return begin + count; }
  bool operator==(const DeviceRange&) const = default;
};

struct Slice {
  int op = 0;
  int first_layer = 0;  // index into MetaOp::layers
  int layers = 0;
  DeviceRange devices;    // config.devices() devices
  ParallelConfig config;  // dp replicas of tp consecutive devices
  Duration fwd, bwd;      // layers x the per-layer times
};

struct Wave {
  std::vector<Slice> slices;
  Duration fwd, bwd;  // the longest slice of each pass
  Duration transfer;  // input movement before the forward (the backward's gradients take as long)
  Bytes moved;        // forward bytes that crossed devices
};

struct Schedule {
  std::vector<Wave> waves;
  int budget = 0;
  // Each task's backward right after its forward, gradients accumulated across tasks (the sequential
  // baseline): only one task's activations are alive at a time. Otherwise the forward of every wave
  // comes before any backward. The step time is the same either way; the memory is not.
  bool task_by_task = false;
};

enum class Placement {
  kInOrder,      // by tensor-parallel size, then MetaOp id, from device 0
  kMinMovement,  // the candidate order with the shortest input movement
};

struct SchedulerInputs {
  const Workload* workload = nullptr;
  const MetaGraph* graph = nullptr;
  const std::vector<ScalingCurve>* curves = nullptr;  // per MetaOp, on 1..budget devices
  int budget = 1;
  const train::StepContext* ctx = nullptr;  // prices movement and synchronisation; null: free
  Placement placement = Placement::kMinMovement;
  hw::DType precision = hw::DType::kBf16;  // the peak MFU is measured against (step_cost.h)
};

// Errors (kInvalidArgument): missing inputs, curves shorter than the budget or not one per MetaOp;
// (kInfeasible): a MetaOp that cannot run on the budget.
Result<Schedule> WavefrontSchedule(const SchedulerInputs& in);
Result<Schedule> SequentialSchedule(const SchedulerInputs& in);

// Ok when every MetaOp's layers run exactly once, in order, in slices of increasing waves; a MetaOp's
// first slice comes in a later wave than every predecessor's last; a wave's ranges are disjoint, inside
// [0, budget) and as large as their configurations. Else kInternal naming the first violation.
Status CheckSchedule(const MetaGraph& g, const Schedule& s);

// Time to move `bytes` of activations from `src` to `dst` (see the file comment); zero without a
// context, for empty ranges or when nothing has to move.
Duration MoveTime(const train::StepContext* ctx, DeviceRange src, DeviceRange dst, double bytes,
                  double* moved_bytes = nullptr);

}  // namespace dlsim::multitask

#endif  // DLSIM_STUDIES_MULTITASK_WAVEFRONT_H_
