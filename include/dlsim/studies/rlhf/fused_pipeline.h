// RLHFuse's intra-stage fusion problem (FlexFusion): several pipelines (the actor and the critic
// replicas) share the same nodes, each stage of each pipeline on its own node; a schedule is, per
// node, the order of its forward and backward tasks. Evaluate() turns an order into times by the
// data dependencies (forward stage s after s-1 of the same micro-batch, backward in reverse, the
// backward of the last stage after its forward) and each node running one task at a time.
//
//   rlhf::FusedProblem p = rlhf::FlexFusionInstance({8, 4, 32, 16, 5, 4, 1.95, 2});
//   rlhf::Schedule s = rlhf::SequentialOneFOneB(p);
//   std::optional<rlhf::ScheduleCost> c = rlhf::Evaluate(p, s);   // makespan 813
//
// Times are integer time units (the FlexFusion instances use abstract units); memory is in units
// of one in-flight micro-batch's activations times its pressure. Values; functions thread-safe.
#ifndef DLSIM_STUDIES_RLHF_FUSED_PIPELINE_H_
#define DLSIM_STUDIES_RLHF_FUSED_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::rlhf {

// One pipeline (one model replica): forward stage s runs on node stage_nodes[s].
struct PipelineModel {
  std::string name;  // e.g. "actor", "critic.0"
  int model = 0;     // replicas of one model share this id (the sequential baseline runs models in turn)
  std::vector<int> stage_nodes;
  int micro_batches = 1;
  int64_t forward = 1;   // one stage, one micro-batch
  int64_t backward = 2;  // one stage, one micro-batch
  double memory = 1;     // activation pressure of one micro-batch held between its forward and backward
  int stages() const { return static_cast<int>(stage_nodes.size()); }
};

struct FusedProblem {
  int nodes = 0;
  std::vector<PipelineModel> pipelines;
};

// Errors (kInvalidArgument, naming the pipeline and field): no nodes or pipelines, a stage node
// out of [0, nodes), two stages of one pipeline on one node, micro_batches < 1, times < 1,
// memory < 0.
Status Validate(const FusedProblem& p);

struct Task {
  int pipeline = 0;
  bool forward = true;
  bool operator==(const Task&) const = default;
};

// Per node, its tasks in execution order. The k-th forward of pipeline q on a node is micro-batch k.
struct Schedule {
  std::vector<std::vector<Task>> order;
};

// The lexicographic objective of FlexFusion: makespan first, then peak memory (the largest, over
// nodes and over time, of the summed memory of the micro-batches forwarded but not yet backwarded).
struct ScheduleCost {
  int64_t makespan = 0;
  double peak_memory = 0;
  // True when *this is strictly better: smaller makespan, or equal makespan and peak memory smaller
  // by more than 1e-9.
  bool BetterThan(const ScheduleCost& o) const;
};

// One executed task, for traces and dependency checks.
struct TaskTiming {
  int node = 0;
  int pipeline = 0;
  int micro_batch = 0;
  int slot = 0;  // 0..S-1 forward stages, S..2S-1 backward stages (slot S + j is stage S-1-j)
  int64_t start = 0, end = 0;
};

// The cost of `s`, or nullopt when it cannot run: a node lists a task of a pipeline with no stage
// there, too many tasks of one kind, a missing task, or an order that deadlocks. `trace` (may be
// null) receives the tasks in execution order per node. O(tasks).
std::optional<ScheduleCost> Evaluate(const FusedProblem& p, const Schedule& s,
                                     std::vector<TaskTiming>* trace = nullptr);

// Evaluate() with its buffers kept between calls (for searches that evaluate one problem many times).
// Borrows the problem (must outlive it). Not thread-safe; one per thread.
class Evaluator {
 public:
  explicit Evaluator(const FusedProblem& p);
  ~Evaluator();
  std::optional<ScheduleCost> operator()(const Schedule& s, std::vector<TaskTiming>* trace = nullptr);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Each pipeline's own 1F1B order on its nodes, the pipelines one after another on every node
// (actor's whole 1F1B, then the critic's): a valid schedule in which the pipelines still overlap
// where one finishes early on a node.
Schedule SequentialOneFOneB(const FusedProblem& p);

// The unfused baseline: the models one after another, each alone on all nodes under 1F1B, with a
// barrier between them: the sum over models of the longest of its replicas' 1F1B makespans.
int64_t SequentialMakespan(const FusedProblem& p);

// get-lower-bound.py generalised to any problem: the largest of (1) each pipeline's critical path
// (S + m - 1)(f + b); (2) all the work over all nodes, rounded up; (3) per node, its total work plus
// the earliest a task can start there and the shortest tail after its last backward.
int64_t LowerBound(const FusedProblem& p);

// FlexFusion's instances (parallel_driver.cc, get-lower-bound.py): the actor with pp_actor stages on
// nodes 0..pp_actor-1 ascending; pp_actor / pp_critic critic replicas, replica i on nodes
// i*pp_critic .. (i+1)*pp_critic-1 in reverse; backward = 2 x forward.
struct FlexFusionParams {
  int pp_actor = 8, pp_critic = 4;
  int mb_actor = 32, mb_critic = 16;
  int64_t fwd_actor = 5, fwd_critic = 4;
  double mem_actor = 1.95, mem_critic = 2;
};
// Errors: pp_critic not dividing pp_actor, or any field < 1 (memory < 0).
Result<FusedProblem> FlexFusionInstance(const FlexFusionParams& f);

}  // namespace dlsim::rlhf

#endif  // DLSIM_STUDIES_RLHF_FUSED_PIPELINE_H_
