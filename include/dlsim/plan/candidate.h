// One point of the planner's search space, and the enumeration of the space with sound pruning before any
// simulation.
//
//   plan::Enumeration e = plan::EnumerateCandidates(base, options, limits);
//   for (const plan::Candidate& c : e.candidates) {
//     train::TrainOptions o = plan::ApplyCandidate(base, c);  // ready to simulate
//   }
//
// Pruning rules (each counted under its reason, in this order):
//   - GPU counts outside the constraints, or not whole nodes (the scenario parser's rule);
//   - divisibility: the checks of train::MakeParallelPlan and of the pipeline schedules (heads by tp,
//     batch by micro_batch * dp, seq_len by 2*cp and tp*cp, layers by stages, interleaved micro-batches by
//     pp), applied as the simulator applies them;
//   - equivalence: keys the simulator ignores for a layout (sequence_parallel at tp 1, the ZeRO stage at
//     dp 1, virtual_stages without the interleaved schedule) are folded onto one candidate;
//   - memory lower bound: weights + gradients + optimizer states per ZeRO stage plus the framework overhead
//     already exceed the usable memory (activations can only add).
// Deterministic: the same inputs give the same candidates in the same order.
#ifndef DLSIM_PLAN_CANDIDATE_H_
#define DLSIM_PLAN_CANDIDATE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/plan/search_space.h"
#include "dlsim/train/options.h"
#include "dlsim/train/parallel_plan.h"

namespace dlsim::plan {

struct Candidate {
  int gpus = 1;
  int global_batch = 1;  // sequences per step
  int micro_batch = 1;
  int tp = 1, pp = 1, cp = 1, dp = 1;
  int virtual_stages = 1;
  int zero = 1;
  train::Recompute recompute = train::Recompute::kNone;
  train::PipelineScheduleKind schedule = train::PipelineScheduleKind::kOneFOneB;
  bool sequence_parallel = false;
  int ep = 1;  // expert parallelism (MoE)

  bool operator==(const Candidate&) const = default;
};

// The scenario's own layout as a candidate (dp resolved).
Candidate CandidateOf(const train::TrainOptions& o);
// `base` with the candidate's layout. layers_per_stage is kept only when the candidate has the base's pp and
// model chunks; otherwise placement is balanced.
train::TrainOptions ApplyCandidate(const train::TrainOptions& base, const Candidate& c);
// (key, value) pairs in a fixed order, with the scenario's value names: gpus, global_batch, micro_batch, tp,
// pp, cp, dp, pipeline_schedule, virtual_stages, zero, recompute, sequence_parallel, ep.
std::vector<std::pair<std::string, std::string>> CandidateFields(const Candidate& c);
// "tp 8 pp 16 cp 1 dp 128 mb 1 1f1b zero 1 recompute selective sp" (gpus when `with_gpus`).
std::string DescribeCandidate(const Candidate& c, bool with_gpus = false);
// "pp 16->8, recompute none->full" (the keys of `c` that differ from `ref`); "" when equal.
std::string DiffCandidates(const Candidate& ref, const Candidate& c);

// Memory a candidate can use per GPU.
struct MemoryLimits {
  Bytes capacity;            // the GPU's memory
  Bytes framework_overhead;  // what the simulator charges besides the model (StepContext)
  double headroom = 0;       // fraction kept free

  Bytes Usable() const { return capacity * (1.0 - headroom); }
};

// A lower bound of the simulator's peak memory per GPU for `o` laid out as `plan`: the largest pipeline
// rank's weights, gradients and optimizer states at the bytes per parameter of train::StateBytes (16-bit
// weights, plus an fp8 copy under fp8; grad_dtype gradients: fp32, or fp16 for fp16 training; fp32 master
// weights and Adam moments), each divided by dp per its ZeRO stage, plus the overhead. Parameters per GPU:
// the rank's layers and the embedding/head divided by tp (replicated norms ignored, which only lowers the
// bound); a MoE layer counts the lesser of a dense layer and its non-expert part / tp plus its experts / (ep
// * etp), all divided by dp per ZeRO stage (experts are sharded over edp <= dp). No activations.
Bytes StaticMemoryLowerBound(const train::TrainOptions& o, const train::ParallelPlan& plan,
                             Bytes framework_overhead);

// Reasons, in report order.
inline constexpr const char* kPrunedGpuCount = "gpu count outside the constraints or not whole nodes";
inline constexpr const char* kPrunedHeads = "attention heads not divisible by tp";
inline constexpr const char* kPrunedBatch = "global batch not divisible by micro_batch * dp";
inline constexpr const char* kPrunedSequence = "seq_len not divisible by 2*cp or tp*cp";
inline constexpr const char* kPrunedStages = "layers or micro-batches do not fill the pipeline";
inline constexpr const char* kPrunedExperts = "ep / etp do not divide the experts or the stage's GPUs";
inline constexpr const char* kPrunedEquivalent = "equivalent to another candidate";
inline constexpr const char* kPrunedMemory = "memory lower bound exceeds usable memory";
inline constexpr const char* kPrunedDominated = "dominated: a lighter recompute mode of the layout fits";

struct Enumeration {
  uint64_t space_size = 0;                               // combinations of the listed values
  std::vector<Candidate> candidates;                     // survivors, in enumeration order
  std::vector<std::pair<std::string, uint64_t>> pruned;  // every reason above, in order

  uint64_t PrunedTotal() const;
  void AddPruned(const std::string& reason, uint64_t n);
};

// Enumerates the space (empty lists take the scenario's value) and prunes it. Precondition: `base` is a
// resolved, valid scenario (io::ParseTrainScenario).
Enumeration EnumerateCandidates(const train::TrainOptions& base, const PlanOptions& options,
                                const MemoryLimits& limits);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_CANDIDATE_H_
