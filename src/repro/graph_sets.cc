// The graph sets of the GNN operator reproductions (graph_sets.h).
#include "graph_sets.h"

#include "dlsim/gnn/rmat.h"
#include "real_graph_runs.h"

namespace dlsim::repro::internal {
namespace {

Result<NamedGraph> Build(std::string name, const gnn::EdgeList& edges) {
  DLSIM_ASSIGN_OR_RETURN(gnn::Graph g, gnn::BuildGraph(edges, {.undirected = true}));
  gnn::GraphProfile prof = gnn::ProfileGraph(g);
  gnn::DegreeStats stats = gnn::ComputeDegreeStats(g);
  return NamedGraph{std::move(name), std::move(g), std::move(prof), stats};
}

// Every vertex linked to the next `half` vertices around a ring: degree 2 x half, no skew.
gnn::EdgeList Ring(int64_t n, int half) {
  gnn::EdgeList e;
  e.num_nodes = n;
  for (int64_t v = 0; v < n; ++v) {
    for (int k = 1; k <= half; ++k) {
      e.src.push_back(static_cast<gnn::NodeId>(v));
      e.dst.push_back(static_cast<gnn::NodeId>((v + k) % n));
    }
  }
  return e;
}

}  // namespace

Result<std::vector<NamedGraph>> BuiltinGraphs() {
  struct Rmat {
    const char* name;
    gnn::RmatOptions o;
  };
  const Rmat rmats[] = {
      {"rmat-14-e8", {.scale = 14, .edge_factor = 8}},
      {"rmat-16-e16", {.scale = 16, .edge_factor = 16}},
      {"rmat-15-e8-mild", {.scale = 15, .edge_factor = 8, .a = 0.45, .b = 0.22, .c = 0.22}},
      {"rmat-15-e16-skewed", {.scale = 15, .edge_factor = 16, .a = 0.7, .b = 0.12, .c = 0.12}}};
  std::vector<NamedGraph> out;
  for (const Rmat& r : rmats) {
    DLSIM_ASSIGN_OR_RETURN(gnn::EdgeList e, gnn::GenerateRmat(r.o));
    DLSIM_ASSIGN_OR_RETURN(NamedGraph g, Build(r.name, e));
    out.push_back(std::move(g));
  }
  DLSIM_ASSIGN_OR_RETURN(NamedGraph ring, Build("ring-d16", Ring(32768, 8)));
  out.push_back(std::move(ring));
  return out;
}

Result<std::vector<NamedGraph>> FileGraphs(const ReproEnv& env, std::string& missing) {
  struct File {
    const char* name;
    const char* file;
    int skip;
  };
  const File files[] = {{"cora", "cora.cites", 0},
                        {"email-eu-core", "email-Eu-core.csv", 0},
                        {"snap-facebook", "snap_facebook_combined.txt", 1},
                        {"deezer", "karateclub_deezer_edges.csv", 0},
                        {"facebook-pages", "karateclub_facebook_edges.csv", 0},
                        {"github", "karateclub_github_edges.csv", 0},
                        {"lastfm", "karateclub_lastfm_edges.csv", 0},
                        {"twitch", "karateclub_twitch_edges.csv", 0},
                        {"wikipedia", "karateclub_wikipedia_edges.csv", 0}};
  std::vector<NamedGraph> out;
  if (env.graphs_dir.empty() || !env.read_edge_list) return out;
  for (const File& f : files) {
    auto edges = env.read_edge_list(env.graphs_dir + "/" + f.file, f.skip);
    if (!edges.ok()) {
      if (!missing.empty()) missing += "; ";
      missing +=
          edges.error().code == ErrorCode::kParse ? edges.error().message : std::string(f.file) + " (absent)";
      continue;
    }
    auto g = Build(f.name, *edges);
    if (!g.ok())  // name the file (issue 35: "the graph is empty" named none)
      return Error{g.error().code, env.graphs_dir + "/" + f.file + ": " + g.error().message};
    out.push_back(std::move(*g));
  }
  if (out.empty()) {
    return Error::NotFound("--graphs " + env.graphs_dir +
                           ": none of the shared graphs could be read (cora.cites, email-Eu-core.csv, "
                           "karateclub_*_edges.csv, ...): " +
                           missing);
  }
  return out;
}

Result<std::vector<NamedGraph>> ShippedGraphSet(const ReproEnv& env) {
  std::vector<NamedGraph> out;
  DLSIM_ASSIGN_OR_RETURN(auto graphs, ReadShippedGraphs(env));
  for (const ReproEnv::NamedEdgeList& g : graphs) {
    DLSIM_ASSIGN_OR_RETURN(NamedGraph built, Build(g.name, *g.edges));
    out.push_back(std::move(built));
  }
  return out;
}

}  // namespace dlsim::repro::internal
