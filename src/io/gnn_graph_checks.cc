#include "gnn_graph_checks.h"

#include <fmt/format.h>

#include <cmath>

#include "dlsim/core/strings.h"

namespace dlsim::io::internal {
namespace {

int64_t NodeCount(const gnn::GraphSource& g) {
  if (g.rmat) return int64_t{1} << g.rmat_options.scale;
  return g.edges ? g.edges->num_nodes : 0;
}

// SplitNodes rounds train x nodes to the nearest integer: 0 means no training node.
void CheckSplit(const MapReader& g, const gnn::GnnOptions& o, int64_t nodes) {
  const double n = static_cast<double>(nodes);
  if (std::llround(o.split.train * n) >= 1) return;
  const std::string need = fmt::format(
      "the split has no training node: train fraction {} of the graph's {} nodes "
      "rounds to 0; allowed: at least {} (one node)",
      FormatNumber(o.split.train, 6), nodes, FormatNumber(0.5 / n, 6));
  const MapReader s = g.Section("split");
  if (s.Has("train"))
    s.AddError("train", need);
  else
    g.AddError("graph", need + "; give split: {train: ...}");
}

void CheckMachines(const MapReader& g, const gnn::GnnOptions& o, int64_t nodes) {
  if (o.hardware.machines <= 1 || o.hardware.machines <= nodes) return;
  const std::string msg = fmt::format(
      "{} machines (partitions) for a graph of {} nodes; allowed: 1..{} (at most one "
      "machine per node)",
      o.hardware.machines, nodes, nodes);
  const MapReader h = g.Section("hardware");
  h.AddError("machines", msg);
}

// GPU caches holding more nodes than the graph: an error where written, else the default is fitted.
void CheckCache(const MapReader& g, const hw::Catalog& hardware, gnn::GnnOptions& o, int64_t nodes) {
  int gpus = o.hardware.gpus_per_machine;
  if (gpus <= 0) {
    auto node = hardware.FindNode(o.hardware.node);
    if (!node.ok()) return;  // reported at hardware.node
    gpus = (*node)->gpus_per_node;
  }
  const double per_node = o.features.PerNode().ToBytes();
  if (gpus <= 0 || per_node <= 0) return;
  const int64_t per_gpu = static_cast<int64_t>(std::floor(o.cache.gpu_gib * std::ldexp(1.0, 30) / per_node));
  if (per_gpu * gpus <= nodes) return;
  const MapReader c = g.Section("cache");
  if (!c.Has("gpu_gib")) {
    o.cache.gpu_gib = static_cast<double>(nodes / gpus) * per_node / std::ldexp(1.0, 30);
    return;
  }
  c.AddError("gpu_gib",
             fmt::format("{} GiB per GPU x {} GPUs holds {} nodes' features, more than the graph's {} "
                         "nodes; allowed: at most {} GiB here",
                         FormatNumber(o.cache.gpu_gib), gpus, per_gpu * gpus, nodes,
                         FormatNumber(static_cast<double>(nodes / gpus) * per_node / std::ldexp(1.0, 30))));
}

}  // namespace

void CheckAgainstGraph(const MapReader& g, const hw::Catalog& hardware, gnn::GnnOptions& o) {
  if (g.document().has_errors()) return;
  const int64_t nodes = NodeCount(o.graph);
  if (nodes <= 0) return;
  CheckSplit(g, o, nodes);
  CheckMachines(g, o, nodes);
  CheckCache(g, hardware, o, nodes);
}

}  // namespace dlsim::io::internal
