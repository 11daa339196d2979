// GNN graph operators as graph loops over tensors (uGrapher's unified abstraction, ASPLOS 2023).
//
//   gnn::GraphOpRegistry ops("graph-op");
//   gnn::RegisterGraphOps(ops);
//   auto op = ops.Create("spmm-max");                 // Result<std::unique_ptr<GraphOperator>>
//   for (const gnn::GraphLoop& l : (*op)->Loops(64)) ...   // one loop: gather u, max into v
//
// A graph operator reads source-vertex, destination-vertex and edge tensors along every edge
// (u -> v) and writes an edge tensor or reduces into the destination vertex. It is described by
// what each loop touches per edge, not by how the loop is run: the schedule (graph_schedule.h)
// decides the mapping of edges and features to GPU threads, and graph_kernel_cost.h prices a
// (loop, schedule, graph, GPU). Edges are visited grouped by destination (the CSC of the graph).
// Values only; thread-safe.
#ifndef DLSIM_GNN_KERNELS_GRAPH_OP_H_
#define DLSIM_GNN_KERNELS_GRAPH_OP_H_

#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/registry.h"

namespace dlsim::gnn {

// How the contributions of a destination's edges combine.
enum class DstReduce { kNone, kSum, kMax };

// One pass over every edge. Widths are in fp32 elements.
struct GraphLoop {
  std::string name;                     // e.g. "gather-max"
  int width = 1;                        // elements per row processed (the feature size, or the heads)
  bool read_src = false;                // gathers the source row (width elements)
  bool read_dst = false;                // reads the destination row (width elements)
  int read_edge = 0;                    // elements read per edge: 0, 1 (a weight) or width (an edge tensor)
  int write_edge = 0;                   // elements written per edge: 0, 1 or width
  DstReduce to_dst = DstReduce::kNone;  // accumulates width elements into the destination row
  bool dot = false;                     // the width products reduce to one scalar per edge (SDDMM u_dot_v)
  bool mean = false;                    // the destination row is divided by its in-degree at the end
};

// A registered operator: its loops at a given feature size (>= 1).
class GraphOperator {
 public:
  virtual ~GraphOperator() = default;
  virtual std::vector<GraphLoop> Loops(int features) const = 0;
};

using GraphOpRegistry = Registry<GraphOperator>;

// copy-u (message creation), u-mul-v, sddmm (u_dot_v), spmm-sum, spmm-mean, spmm-max,
// spmm-weighted (u_mul_e then sum: GCN's normalised aggregation), edge-softmax (three loops:
// max of the scores per destination, exp and their sum, the division).
void RegisterGraphOps(GraphOpRegistry& reg);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_KERNELS_GRAPH_OP_H_
