// The event simulation of one training step over per-rank streams.
//
// One pipeline of `stages` ranks is simulated: data-, tensor- and context-parallel peers of
// a pipeline rank run identical programs on identical inputs (same shapes, same collectives),
// so simulating one representative per pipeline rank is exact, not an approximation. When
// micro-batches differ in content (data-aware runs), the cost callback says so per task.
//
// Streams per pipeline rank: compute (forward/backward tasks in the schedule's order),
// p2p (activations and gradients to the neighbouring stage), and dp (gradient reduction
// buckets, parameter gathers, optimizer). Dependencies are real: a forward waits for the
// activation of the previous virtual stage to arrive; a backward for the gradient of the
// next; gradient buckets become ready as the last micro-batch's backward passes their
// layers; the optimizer waits for its rank's reductions; the step ends when every rank is done.
//
// Thread-compatible: each SimulateStep call keeps its own state; concurrent calls need their own sinks.
#ifndef DLSIM_TRAIN_STEP_SIM_H_
#define DLSIM_TRAIN_STEP_SIM_H_

#include <functional>
#include <string>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/report/sink.h"
#include "dlsim/train/pipeline_schedule.h"

namespace dlsim::train {

// Kernel time of a task by operator kind (model/layer_graph.h OpKind: GEMMs, core attention, memory-bound
// operators) and the time its layers wait for the host to issue their kernels (the host floor, chunk_cost.h).
// For the layers, embedding and head of a language model or a DiT the four add up to TaskCost::compute;
// kernels priced outside the operator graph (a multimodal model's encoders) are in compute only.
struct KernelMix {
  Duration gemm, attention, memory, host_wait;
  Duration Total() const { return gemm + attention + memory + host_wait; }
  KernelMix& operator+=(const KernelMix& o) {
    gemm += o.gemm;
    attention += o.attention;
    memory += o.memory;
    host_wait += o.host_wait;
    return *this;
  }
  KernelMix operator*(double k) const { return {gemm * k, attention * k, memory * k, host_wait * k}; }
};

// Time of one forward or backward task, split by what it spends it on (for the breakdown).
struct TaskCost {
  Duration compute;    // kernels, including recomputation
  Duration recompute;  // part of compute spent re-running the forward (backward tasks only)
  Duration tp_comm;    // exposed tensor-parallel communication
  Duration cp_comm;    // exposed context-parallel communication
  Duration ep_comm;    // exposed expert-parallel token all-to-all (and expert-TP gathers), MoE layers
  KernelMix mix;       // of compute: by operator kind
  Duration Total() const { return compute + tp_comm + cp_comm + ep_comm; }
};

// One gradient reduction bucket of a model chunk: it becomes ready when the backward of the
// chunk's last micro-batch has covered `ready_fraction` of the task.
struct GradBucket {
  int chunk = 0;
  double ready_fraction = 1.0;
  Duration reduce;  // time on the dp stream
  // What is reduced, for execution traces (report/execution_graph.h): bytes per rank, the collective
  // ("all_reduce" or "reduce_scatter") and the group ("dp"; "edp" for routed experts' gradients).
  Bytes bytes{};
  const char* collective = "all_reduce";
  const char* group = "dp";
};

// Whether micro-batch `micro_batch` of `replica` keeps its activations from its forward to its backward
// (false: dropped after the forward and recomputed at the backward, as ChunkFlow's early chunks).
using KeepsActivationsFn = std::function<bool(int replica, int micro_batch)>;

struct StepProgram {
  PipeShape shape;  // stages, chunks; micro_batches = the most any replica runs
  // The order of each simulated data-parallel replica ([replica][rank][position]). One
  // replica when all replicas are identical (uniform data); dp replicas when micro-batch
  // contents differ, and then gradient reductions wait for the slowest replica.
  std::vector<PipeOrder> orders;
  // Cost of a task on a pipeline rank of a replica.
  std::function<TaskCost(int replica, int rank, const PipeTask&)> task_cost;
  // Null: every micro-batch keeps its activations (peak_in_flight counts forwarded, not yet backwarded
  // ones). A micro-batch that does not keep them counts only while its backward runs.
  KeepsActivationsFn keeps_activations;
  // [rank][chunk]: the bytes one micro-batch of the chunk keeps from its forward to its backward. Empty:
  // every chunk the same. RankTimeline::peak_in_flight_by_chunk is taken at the peak of their sum over the
  // micro-batches in flight, so a chunk with a large activation (an output head's logits) counts only as
  // often as the schedule really holds it.
  std::vector<std::vector<double>> activation_bytes;
  Duration p2p;     // one activation (or its gradient) to the next stage
  Bytes p2p_bytes;  // its size (execution traces; 0 where p2p_time prices transfers of other sizes)
  // Null: every transfer takes `p2p`. Else the time of the transfer that leaves virtual stage `from_vs` for a
  // neighbour (forward: to from_vs + 1, backward: to from_vs - 1) for micro-batch `mb` of `replica`: stages
  // of a heterogeneous pipeline (a vision encoder's and an LLM's) pass activations of different sizes.
  std::function<Duration(int replica, int from_vs, int mb, bool forward)> p2p_time;
  std::vector<std::vector<GradBucket>> buckets;  // [rank]
  bool overlap_grad_reduce = true;               // false: reductions start after the last backward
  std::vector<Duration> optimizer;               // [rank] optimizer step
  // [rank] of `optimizer`: autocast's weight and gradient casts and DeepSpeed's per-micro-batch gradient
  // accumulation (GradAccumulation::kCastAdd), priced with the optimizer step (their kernels run in the
  // forward and backward passes); reported apart (Breakdown::cast_s). Empty: none.
  std::vector<Duration> optimizer_casts;
  std::vector<Duration> param_gather;  // [rank] exposed parameter all-gather after the optimizer
  // [rank] the next forward's extra time for running beside the hidden part of that gather
  // (overlap_contention, below), after it; empty: none.
  std::vector<Duration> param_gather_contention;
  std::vector<Bytes> param_gather_bytes;  // [rank] its size per rank (execution traces)
  // Per-task parameter gather before each forward/backward (ZeRO-3), on the dp stream,
  // prefetched one task ahead; zero when unused.
  std::vector<Duration> zero3_gather;     // [rank]
  std::vector<Bytes> zero3_gather_bytes;  // [rank] its size per rank (execution traces)
  // [rank] layers of a chunk (empty: 1). ZeRO-3 / FSDP gather a chunk layer by layer: a task may start once
  // its first layer's share has arrived, and cannot end before its whole gather plus its last layer's
  // compute.
  std::vector<int> zero3_layers;
  // false (reshard_after_forward false): a chunk is gathered before its first task of the step only; its
  // parameters then stay for the step's other forwards and backwards.
  bool zero3_reshard = true;
  // [rank] FSDP2's copy of a gathered chunk's weights into its parameters, on the compute stream at the start
  // of every task whose chunk was gathered for it (ParallelOptions::sharding). Empty: none.
  std::vector<Duration> zero3_copy_out;
  // How much slower compute runs while a collective of the dp stream (a gradient reduction or a ZeRO-3
  // gather) runs beside it (ParallelOptions::overlap_contention): compute that overlapped such collectives
  // for a time T in the simulated step does T x c / (1 + c) of its work late. Priced to first order after
  // the event run: each rank's compute end moves by its own extra time, and the step's end by what that does
  // to the reductions that follow (RankTimeline::contention). 0: none.
  double overlap_contention = 0;
  // A rank's compute waits for each of its sends to complete (ParallelOptions::p2p_blocking): the transfer
  // time only, not a rendezvous with the receiver's schedule.
  bool p2p_blocking = false;
};

struct RankTimeline {
  Duration compute;  // busy on the compute stream (kernels)
  KernelMix mix;     // of compute: by operator kind (TaskCost::mix summed)
  Duration recompute;
  Duration tp_comm;
  Duration cp_comm;
  Duration ep_comm;
  Duration contention;  // compute slowed by dp-stream collectives beside it (StepProgram::overlap_contention)
  Duration bubble;      // idle on the compute stream before its last backward ended, gather waits excluded
  Duration gather_wait;  // of the idle time, waiting only for ZeRO-3 parameter gathers
  Duration dp_exposed;   // last backward end -> gradients reduced
  Duration optimizer;
  Duration param_gather;
  Duration finish;         // when this rank is done
  int peak_in_flight = 0;  // most chunk activations held at once (forwarded, not yet backwarded)
  // Micro-batches in flight per chunk when the activation bytes held (StepProgram::activation_bytes) peak.
  std::vector<int> peak_in_flight_by_chunk;
};

struct StepTimeline {
  Duration step_time;
  int critical_rank = 0;
  int critical_replica = 0;
  std::vector<RankTimeline> ranks;  // of the critical replica
  // When each replica's last backward ended (max over its pipeline ranks): the spread is the
  // data-parallel straggler gap.
  std::vector<Duration> replica_compute_end;
  uint64_t events = 0;
};

// Stream ids used in traces: process = replica * stages + rank (a pipeline rank of a
// replica), thread = stream.
enum Stream { kComputeStream = 0, kP2pStream = 1, kDpStream = 2, kStreamsPerRank = 3 };

// Runs the step. `sink` receives spans (process = replica * stages + rank, thread = stream); may be null.
// Communication spans carry the execution-graph args (report/execution_graph.h): a p2p transfer "comm" =
// "send" with its "peer" process and "bytes"; a gradient reduction or parameter gather its collective,
// "group" and "bytes". TP, CP and EP communication stays inside the compute spans, as it is priced there.
// Preconditions: program.orders is not empty; each order has shape.stages ranks, consistent with the shape.
StepTimeline SimulateStep(const StepProgram& program, report::Sink* sink);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_STEP_SIM_H_
