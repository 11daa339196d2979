// The real graphs shipped with dlsim (data/graphs/, compiled into the binary; provenance and
// licences in data/graphs/README.md): public graphs of over a million edges that the GNN
// reproductions and `dlsim gnn` (`graph: {shipped: NAME}`) run on beside R-MAT.
//
//   for (const io::ShippedGraphInfo& g : io::ShippedGraphs()) ...
//   Result<gnn::EdgeList> e = io::ReadShippedGraph("cnr-2000");  // 325,557 nodes, 3,216,152 arcs
//
// ReadShippedGraph decompresses and parses the embedded file on every call (about a second for
// cnr-2000); the edges are as the file has them (directed arcs; build the graph undirected to
// symmetrise). An unknown name is kNotFound with the closest name and the list. Thread-safe.
#ifndef DLSIM_IO_SHIPPED_GRAPHS_H_
#define DLSIM_IO_SHIPPED_GRAPHS_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::io {

struct ShippedGraphInfo {
  std::string name;         // "cnr-2000"
  std::string file;         // "data/graphs/cnr-2000.graph-txt.gz"
  std::string description;  // what it is, its size and its source, one line
  bool directed = true;     // arcs (a web graph's links); false: each undirected pair once
};

// In a fixed order (cnr-2000, ogbl-ddi).
const std::vector<ShippedGraphInfo>& ShippedGraphs();
Result<gnn::EdgeList> ReadShippedGraph(std::string_view name);

}  // namespace dlsim::io

#endif  // DLSIM_IO_SHIPPED_GRAPHS_H_
