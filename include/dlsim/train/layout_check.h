// The rules a parallel layout must satisfy before a step can be simulated, in one place: the
// scenario reader reports them as errors at the offending key, the parallel plan as
// infeasibility, and the planner prunes candidates by their reason.
//
//   for (const LayoutIssue& i : CheckLayout(options)) std::cerr << i.key << ": " << i.message;
//
// Stateless; thread-safe.
#ifndef DLSIM_TRAIN_LAYOUT_CHECK_H_
#define DLSIM_TRAIN_LAYOUT_CHECK_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/train/options.h"

namespace dlsim::train {

// Why a layout cannot run, by kind (the planner's pruning categories).
enum class LayoutRule {
  kGpus,      // tp*pp*cp*dp against the GPU count; whole nodes
  kHeads,     // attention and KV heads against tp
  kSequence,  // seq_len against 2*cp and tp*cp (sequence parallelism)
  kBatch,     // global batch against micro_batch * dp
  kStages,    // layers and micro-batches against the pipeline stages; schedule shape
  kExperts,   // ep and etp against the experts, the expert width and the GPUs of a stage (MoE)
  kContext,   // the context-parallel layout and attention sparsity against the model and the heads
};

struct LayoutIssue {
  // The scenario key the rule is about, as "section.key" (e.g. "parallel.tp",
  // "training.global_batch"), or a section name when no single key is at fault.
  std::string key;
  LayoutRule rule = LayoutRule::kGpus;
  std::string message;  // what is wrong, with the numbers, e.g. "tp 3 does not divide the 32 ..."
};

// Micro-batches per step and replica: every one is a task of the pipeline schedule (memory, time).
inline constexpr int64_t kMaxMicroBatches = 100000;
// Forward and backward tasks per pipeline rank (2 x micro-batches x virtual_stages) the step simulator holds.
inline constexpr int64_t kMaxPipelineTasks = 1000000;
// Tokens per step (seq_len x global_batch): 2^40, a thousand times the largest published batches.
inline constexpr double kMaxTokensPerStep = 1099511627776.0;

// Every rule `o` breaks, in a fixed order (GPUs, heads, sequence, batch, stages, experts, context); empty
// when the layout can run. parallel.dp 0 means gpus / (tp*pp*cp). The model shape itself (hidden divisible by
// heads, ...) is the model's rule (ModelSpec::Validate), not a layout rule.
std::vector<LayoutIssue> CheckLayout(const TrainOptions& o);

// The data-parallel size of `o`: parallel.dp when given, else gpus / (tp*pp*cp) (0 when that does
// not divide).
int DataParallelSize(const TrainOptions& o);

// The expert-tensor-parallel size of `o`: parallel.etp when given, else tp (Megatron-Core's default).
int ExpertTensorParallelSize(const TrainOptions& o);

// Error::Infeasible with the first issue's message ("key: message"), or OK.
Status LayoutStatus(const std::vector<LayoutIssue>& issues);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_LAYOUT_CHECK_H_
