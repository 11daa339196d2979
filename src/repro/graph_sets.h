// The graphs of the GNN operator reproductions (uGrapher, gnn-algebra): built-in R-MAT graphs of
// three skews and a regular ring, and the shared real graphs of `--graphs DIR`. Private to src/repro.
#ifndef DLSIM_SRC_REPRO_GRAPH_SETS_H_
#define DLSIM_SRC_REPRO_GRAPH_SETS_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"
#include "dlsim/gnn/kernels/graph_kernel_cost.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro::internal {

struct NamedGraph {
  std::string name;
  gnn::Graph graph;
  gnn::GraphProfile profile;
  gnn::DegreeStats stats;
};

// rmat-14-e8, rmat-16-e16 (Graph500 skew), rmat-15-e8-mild (a = 0.45), rmat-15-e16-skewed (a = 0.7),
// ring-d16 (32768 vertices of degree 16). All undirected; deterministic.
Result<std::vector<NamedGraph>> BuiltinGraphs();

// The shared graphs (cora, email-Eu-core, SNAP Facebook, the six karateclub graphs) found in
// env.graphs_dir through env.read_edge_list, undirected; a file that is absent or does not parse is
// skipped and said in `missing` (';'-separated: the parse error, or "FILE (absent)"). None when
// env.graphs_dir is empty; kNotFound when it is set and no file could be read (a wrong folder).
Result<std::vector<NamedGraph>> FileGraphs(const ReproEnv& env, std::string& missing);

// The real graphs shipped with dlsim (env.read_shipped_graphs: cnr-2000, ogbl-ddi), undirected; none
// when the env has no reader.
Result<std::vector<NamedGraph>> ShippedGraphSet(const ReproEnv& env);

}  // namespace dlsim::repro::internal

#endif  // DLSIM_SRC_REPRO_GRAPH_SETS_H_
