#include "dlsim/studies/multitask/workload.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace dlsim::multitask {
namespace {

constexpr double kActBytes = 2.0;  // bf16 activations

// The fields of a shape that set a layer's cost (everything but names, sources and the layer count).
auto CostKey(const model::ModelSpec& m) {
  return std::make_tuple(m.arch, m.hidden, m.heads, m.kv_heads, m.ffn_hidden, m.vocab, m.gated_mlp,
                         m.attention_bias, m.linear_bias, m.norm, m.position_embedding, m.dropout,
                         m.explicit_head_dim, m.mla.q_lora_rank, m.mla.kv_lora_rank, m.mla.qk_nope_head_dim,
                         m.mla.qk_rope_head_dim, m.mla.v_head_dim);
}

// A node of the layer graph before contraction.
struct LayerNode {
  int task = 0, stage = 0;
  LayerRef ref;
  std::vector<int> preds, succs;
};

bool SameWorkload(const Workload& w, const LayerNode& a, const LayerNode& b) {
  const Module& ma = w.modules[a.ref.module];
  const Module& mb = w.modules[b.ref.module];
  const Stage& sa = w.tasks[a.task].stages[a.stage];
  const Stage& sb = w.tasks[b.task].stages[b.stage];
  return a.task == b.task && ma.kind == mb.kind && CostKey(ma.shape) == CostKey(mb.shape) &&
         sa.tokens == sb.tokens;
}

std::string Where(const Task& t, const Stage& s) { return "task '" + t.name + "' stage '" + s.name + "'"; }

Status ValidateModule(const Module& m) {
  if (m.kind == ModuleKind::kHead) {
    if (m.shape.hidden < 1 || m.shape.vocab < 1)
      return Error::InvalidArgument("module '" + m.name +
                                    "': a head needs hidden >= 1 and out_features >= 1");
    return Status::Ok();
  }
  if (m.shape.moe.enabled())
    return Error::InvalidArgument(
        "module '" + m.name + "': mixture-of-experts modules are not modelled by the multitask scheduler");
  Status st = m.shape.Validate();
  if (!st.ok()) return Error::InvalidArgument("module '" + m.name + "': " + st.error().message);
  return Status::Ok();
}

Status ValidateTask(const Workload& w, const Task& t) {
  if (t.batch < 1) return Error::InvalidArgument("task '" + t.name + "': batch must be >= 1");
  if (t.stages.empty()) return Error::InvalidArgument("task '" + t.name + "': no stages");
  std::set<std::string> earlier;
  for (const Stage& s : t.stages) {
    if (earlier.count(s.name)) return Error::InvalidArgument(Where(t, s) + ": given twice");
    if (w.FindModule(s.module) < 0)
      return Error::InvalidArgument(Where(t, s) + ": unknown module '" + s.module + "'");
    if (s.tokens < 1) return Error::InvalidArgument(Where(t, s) + ": tokens must be >= 1");
    for (const std::string& a : s.after.value_or(std::vector<std::string>{})) {
      if (!earlier.count(a))
        return Error::InvalidArgument(Where(t, s) + ": 'after' names '" + a +
                                      "', which is not an earlier stage of the task");
    }
    earlier.insert(s.name);
  }
  return Status::Ok();
}

}  // namespace

double Module::LayerParameters() const {
  if (kind == ModuleKind::kTransformer) return shape.LayerParameters();
  const double norm = shape.norm == model::Norm::kLayerNorm ? 2.0 * shape.hidden : shape.hidden;
  return static_cast<double>(shape.hidden) * shape.vocab + norm;
}

int Workload::FindModule(const std::string& module_name) const {
  for (size_t i = 0; i < modules.size(); ++i)
    if (modules[i].name == module_name) return static_cast<int>(i);
  return -1;
}

Status Validate(const Workload& w) {
  if (w.tasks.empty()) return Error::InvalidArgument("workload '" + w.name + "': no tasks");
  std::set<std::string> names;
  for (const Module& m : w.modules) {
    if (!names.insert(m.name).second)
      return Error::InvalidArgument("workload '" + w.name + "': module '" + m.name + "' given twice");
    DLSIM_RETURN_IF_ERROR(ValidateModule(m));
  }
  names.clear();
  for (const Task& t : w.tasks) {
    if (!names.insert(t.name).second)
      return Error::InvalidArgument("workload '" + w.name + "': task '" + t.name + "' given twice");
    DLSIM_RETURN_IF_ERROR(ValidateTask(w, t));
  }
  return Status::Ok();
}

namespace {

// The layer graph: per stage a chain of its module's layers, in task and stage order (topological), an
// edge from the last layer of each stage read to the first of the reader.
std::vector<LayerNode> BuildLayerGraph(const Workload& w) {
  std::vector<LayerNode> nodes;
  for (int t = 0; t < static_cast<int>(w.tasks.size()); ++t) {
    const Task& task = w.tasks[t];
    std::map<std::string, int> last;  // stage -> its last node
    for (int s = 0; s < static_cast<int>(task.stages.size()); ++s) {
      const Stage& st = task.stages[s];
      const int module = w.FindModule(st.module);
      const int first = static_cast<int>(nodes.size());
      for (int l = 0; l < w.modules[module].layers(); ++l) {
        LayerNode n{t, s, {module, l}, {}, {}};
        if (l > 0) n.preds.push_back(first + l - 1);
        nodes.push_back(n);
        if (l > 0) nodes[first + l - 1].succs.push_back(first + l);
      }
      std::vector<std::string> after;
      if (st.after) {
        after = *st.after;
      } else if (s > 0) {
        after = {task.stages[s - 1].name};
      }
      std::set<int> from;
      for (const std::string& a : after) from.insert(last.at(a));
      for (int p : from) {
        nodes[first].preds.push_back(p);
        nodes[p].succs.push_back(first);
      }
      last[st.name] = static_cast<int>(nodes.size()) - 1;
    }
  }
  return nodes;
}

// A new MetaOp of one layer node.
MetaOp NewMetaOp(const Workload& w, const LayerNode& n, int id) {
  const Stage& st = w.tasks[n.task].stages[n.stage];
  MetaOp op;
  op.id = id;
  op.name = w.tasks[n.task].name + "/" + st.name;
  op.task = n.task;
  op.module = n.ref.module;
  op.kind = w.modules[n.ref.module].kind;
  op.layers.push_back(n.ref);
  op.samples = w.tasks[n.task].batch;
  op.tokens = st.tokens;
  return op;
}

// Edges between MetaOps from the layer edges that cross them, sorted and unique.
void LinkMetaOps(const std::vector<LayerNode>& nodes, const std::vector<int>& op_of, MetaGraph& g) {
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    for (int p : nodes[i].preds) {
      const int a = op_of[p], b = op_of[i];
      if (a == b) continue;
      g.ops[b].preds.push_back(a);
      g.ops[a].succs.push_back(b);
    }
  }
  for (MetaOp& op : g.ops) {
    for (std::vector<int>* v : {&op.preds, &op.succs}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
  }
}

}  // namespace

Result<MetaGraph> Contract(const Workload& w) {
  DLSIM_RETURN_IF_ERROR(Validate(w));
  const std::vector<LayerNode> nodes = BuildLayerGraph(w);
  // Contraction: a node joins its predecessor's MetaOp when the edge between them is the only one of
  // both and the workloads are equal. Nodes are in topological order, so the predecessor is placed.
  MetaGraph g;
  g.layer_nodes = static_cast<int>(nodes.size());
  std::vector<int> op_of(nodes.size(), -1);
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const LayerNode& n = nodes[i];
    if (n.preds.size() == 1) {
      const int p = n.preds[0];
      if (nodes[p].succs.size() == 1 && SameWorkload(w, nodes[p], n)) {
        MetaOp& op = g.ops[op_of[p]];
        op.layers.push_back(n.ref);
        op_of[i] = op.id;
        if (nodes[p].stage != n.stage) op.name += "+" + w.tasks[n.task].stages[n.stage].name;
        continue;
      }
    }
    op_of[i] = static_cast<int>(g.ops.size());
    g.ops.push_back(NewMetaOp(w, n, op_of[i]));
  }
  LinkMetaOps(nodes, op_of, g);
  return g;
}

double OutputBytes(const MetaOp& op, const Workload& w) {
  const model::ModelSpec& s = w.modules[op.module].shape;
  const double width = op.kind == ModuleKind::kHead ? s.vocab : s.hidden;
  return static_cast<double>(op.samples) * op.tokens * width * kActBytes;
}

}  // namespace dlsim::multitask
