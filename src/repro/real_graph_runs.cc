// The GNN-training reproductions on the shipped real graphs (real_graph_runs.h).
#include "real_graph_runs.h"

namespace dlsim::repro::internal {

Result<std::vector<ReproEnv::NamedEdgeList>> ReadShippedGraphs(const ReproEnv& env) {
  if (!env.read_shipped_graphs) return std::vector<ReproEnv::NamedEdgeList>{};
  return env.read_shipped_graphs();
}

gnn::GnnOptions WithGraph(gnn::GnnOptions base, const ReproEnv::NamedEdgeList& graph) {
  base.graph.name = graph.name;
  base.graph.rmat = false;
  base.graph.edges = graph.edges;
  if (!graph.directed) base.graph.undirected = true;
  return base;
}

Result<RealGraphRun> RunOnGraph(const ReproEnv& env, const gnn::GnnOptions& base,
                                const std::vector<gnn::GnnVariant>& variants,
                                const ReproEnv::NamedEdgeList& graph, const AdaptWorkload& adapt) {
  gnn::GnnOptions o = WithGraph(base, graph);
  const auto arcs = static_cast<int64_t>(graph.edges->src.size());
  if (adapt) adapt(o, graph.edges->num_nodes, arcs);
  DLSIM_ASSIGN_OR_RETURN(auto results, gnn::Compare(o, variants, *env.catalogs));
  return RealGraphRun{graph.name, std::move(results)};
}

nlohmann::ordered_json WithGraphColumn(const std::string& graph, const nlohmann::ordered_json& row) {
  nlohmann::ordered_json out = {{"graph", graph}};
  out.update(row);
  return out;
}

Result<std::vector<RealGraphRun>> RunOnShippedGraphs(const ReproEnv& env, const gnn::GnnOptions& base,
                                                     const std::vector<gnn::GnnVariant>& variants,
                                                     const AdaptWorkload& adapt) {
  DLSIM_ASSIGN_OR_RETURN(auto graphs, ReadShippedGraphs(env));
  std::vector<RealGraphRun> out;
  for (const ReproEnv::NamedEdgeList& g : graphs) {
    DLSIM_ASSIGN_OR_RETURN(RealGraphRun run, RunOnGraph(env, base, variants, g, adapt));
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace dlsim::repro::internal
