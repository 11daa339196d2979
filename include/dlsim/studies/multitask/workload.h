// A multi-task (multi-modal) model as the tasks describe it, and its contraction into a DAG of
// MetaOps (Spindle, Wang et al., ASPLOS 2025, arXiv 2409.03365; docs/multitask.md).
//
// A workload has modules (parameter blocks: a modality encoder, a shared backbone, a task head) and
// tasks. A task has a batch (samples per training step) and stages: each stage runs one module over
// `tokens` tokens per sample and reads the outputs of earlier stages of the same task. Modules are
// shared by every task whose stages name them: their parameters are one set, their gradients are
// reduced over every device that ran them.
//
//   multitask::Workload w = ...;                                   // io/multitask_workload.h reads YAML
//   DLSIM_ASSIGN_OR_RETURN(multitask::MetaGraph g, multitask::Contract(w));
//   for (const multitask::MetaOp& op : g.ops) ...                  // topological order
//
// Values; functions thread-safe.
#ifndef DLSIM_STUDIES_MULTITASK_WORKLOAD_H_
#define DLSIM_STUDIES_MULTITASK_WORKLOAD_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/model/model_spec.h"

namespace dlsim::multitask {

enum class ModuleKind {
  kTransformer,  // shape.layers identical transformer layers (model/layer_graph.h BuildLayerOps)
  kHead,         // one "layer": final norm, a projection of shape.hidden -> shape.vocab, and the loss
};

struct Module {
  std::string name;
  ModuleKind kind = ModuleKind::kTransformer;
  // kTransformer: the layers' shape (a catalog entry or inline; dense only). kHead: hidden is the input
  // width, vocab the output features, norm the final norm; layers is 1.
  model::ModelSpec shape;
  // Parameters of one layer (a count): LayerParameters() of the shape, or the head's projection and norm.
  double LayerParameters() const;
  int layers() const { return kind == ModuleKind::kHead ? 1 : shape.layers; }
};

struct Stage {
  std::string name;    // unique within its task
  std::string module;  // a Module's name
  int tokens = 1;      // tokens per sample through the module
  // Stages of the same task whose outputs this one reads. Unset: the stage before it in the list
  // (none for the first); an empty list: a source.
  std::optional<std::vector<std::string>> after;
};

struct Task {
  std::string name;
  int batch = 1;  // samples per training step
  std::vector<Stage> stages;
};

struct Workload {
  std::string name;
  std::string source;  // where the setup comes from
  std::vector<Module> modules;
  std::vector<Task> tasks;
  int FindModule(const std::string& name) const;  // index, or -1
};

// Errors (kInvalidArgument, naming the task/stage/module): no tasks, a task without stages, duplicate
// module, task or stage names, a stage naming an unknown module or an `after` stage that is unknown or
// not earlier in the list (so every task graph is acyclic), tokens or batch < 1, a module shape that
// breaks ModelSpec's rules, a mixture-of-experts module (not modelled here), a head without hidden or
// output features.
Status Validate(const Workload& w);

// One layer of one module.
struct LayerRef {
  int module = 0;
  int layer = 0;  // 0-based within the module
  bool operator==(const LayerRef&) const = default;
};

// Operators with identical workload grouped: a chain of layers of one task that have the same shape,
// tokens per sample and samples, and no other edge between them (Spindle's graph contraction).
struct MetaOp {
  int id = 0;
  std::string name;  // "task/stage", stages joined by '+' when a chain of stages contracts
  int task = 0;
  int module = 0;  // the module of the first layer (its shape prices every layer)
  ModuleKind kind = ModuleKind::kTransformer;
  std::vector<LayerRef> layers;   // in execution order
  int samples = 1;                // the task's batch
  int tokens = 1;                 // per sample
  std::vector<int> preds, succs;  // MetaOp ids, ascending
  int size() const { return static_cast<int>(layers.size()); }
};

struct MetaGraph {
  std::vector<MetaOp> ops;  // ids 0..n-1 in a topological order (tasks in order, stages in order)
  int layer_nodes = 0;      // layers before contraction (the operator graph's size)
};

// Validates, builds the layer graph (every stage's module layers in a chain, an edge from the last
// layer of each `after` stage to the first of the stage) and contracts maximal chains u -> v where u
// has one successor, v one predecessor and both the same workload (kind, shape apart from the layer
// count and name, tokens, samples). Deterministic.
Result<MetaGraph> Contract(const Workload& w);

// Bytes of the activations a MetaOp's output (or the boundary between two of its layers) holds for the
// whole batch: samples x tokens x hidden x 2 (bf16).
double OutputBytes(const MetaOp& op, const Workload& w);

}  // namespace dlsim::multitask

#endif  // DLSIM_STUDIES_MULTITASK_WORKLOAD_H_
