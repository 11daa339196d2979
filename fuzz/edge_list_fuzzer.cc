// Fuzz target: the edge-list reader (`graph: {file: F}` of a GNN scenario, io::ParseEdgeList) in
// every format (the adjacency list's node count is bounded by its lines, so by the input), then what `dlsim
// gnn` does with the list: the graph is built (directed and undirected) and, when it has at most 20,000
// nodes, one epoch is simulated on it.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "dlsim/gnn/simulate.h"
#include "dlsim/io/edge_list.h"
#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string_view text = fuzz::Text(data, size);
  for (io::EdgeListFormat f : {io::EdgeListFormat::kAuto, io::EdgeListFormat::kCsv, io::EdgeListFormat::kTsv,
                               io::EdgeListFormat::kSnap, io::EdgeListFormat::kAdjacency}) {
    auto edges = io::ParseEdgeList(text, "fuzz-edges.txt", {.format = f});
    if (!edges.ok()) continue;
    for (bool undirected : {true, false}) {
      auto g = gnn::BuildGraph(*edges, {.undirected = undirected});
      if (!g.ok() || g->num_nodes() > 20000) continue;
      gnn::GnnOptions o;
      o.graph.rmat = false;
      o.graph.undirected = undirected;
      o.graph.edges = std::make_shared<const gnn::EdgeList>(*edges);
      o.split.train = 0.5;
      o.batch_size = 64;
      o.cache.gpu_gib = 0;
      (void)gnn::Simulate(o, fuzz::Catalogs(), nullptr);
    }
  }
  return 0;
}
