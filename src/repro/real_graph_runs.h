// The GNN-training reproductions (BGL, CaliEX, AliGraph, Helios) on the real graphs shipped with dlsim
// (ReproEnv::read_shipped_graphs: cnr-2000 and ogbl-ddi), beside their headline on R-MAT. One
// mechanism: the reproduction's own workload with the real graph in place of R-MAT, its knobs that
// depend on the graph's size re-scaled by the reproduction (`adapt`), and the same variants.
// Private to src/repro.
#ifndef DLSIM_SRC_REPRO_REAL_GRAPH_RUNS_H_
#define DLSIM_SRC_REPRO_REAL_GRAPH_RUNS_H_

#include <functional>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/gnn/simulate.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro::internal {

struct RealGraphRun {
  std::string graph;                    // "cnr-2000"
  std::vector<gnn::GnnResult> results;  // one per variant, in order
};

// Sets the workload's graph-dependent knobs for a graph of `nodes` nodes and `arcs` arcs.
using AdaptWorkload = std::function<void(gnn::GnnOptions& o, int64_t nodes, int64_t arcs)>;

// The shipped graphs, read once (none when env.read_shipped_graphs is empty).
Result<std::vector<ReproEnv::NamedEdgeList>> ReadShippedGraphs(const ReproEnv& env);

// `base` with `graph` in place of its graph (an undirected file's graph stays undirected).
gnn::GnnOptions WithGraph(gnn::GnnOptions base, const ReproEnv::NamedEdgeList& graph);

// Runs `variants` of `base` with `graph` in place of its graph, adapted by `adapt` (may be empty).
Result<RealGraphRun> RunOnGraph(const ReproEnv& env, const gnn::GnnOptions& base,
                                const std::vector<gnn::GnnVariant>& variants,
                                const ReproEnv::NamedEdgeList& graph, const AdaptWorkload& adapt);

// `row` with the graph's name as its first column (a `real_graphs` row).
nlohmann::ordered_json WithGraphColumn(const std::string& graph, const nlohmann::ordered_json& row);

// ReadShippedGraphs, then RunOnGraph on each: runs `variants` of `base` on every shipped graph (its `graph`
// replaced: the file's arcs, directed as `base.graph.undirected` says). None when env.read_shipped_graphs is
// empty; its errors pass on.
Result<std::vector<RealGraphRun>> RunOnShippedGraphs(const ReproEnv& env, const gnn::GnnOptions& base,
                                                     const std::vector<gnn::GnnVariant>& variants,
                                                     const AdaptWorkload& adapt);

}  // namespace dlsim::repro::internal

#endif  // DLSIM_SRC_REPRO_REAL_GRAPH_RUNS_H_
