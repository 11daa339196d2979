#include "ugrapher_measured.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "dlsim/core/csv.h"
#include "dlsim/gnn/graph.h"
#include "dlsim/gnn/kernels/graph_op.h"
#include "dlsim/gnn/kernels/schedule_select.h"
#include "dlsim/gnn/rmat.h"

namespace dlsim::embedded {
std::string_view H200GnnAggregationCsv();  // data/profiles/h200/gnn_aggregation.csv
}  // namespace dlsim::embedded

namespace dlsim::repro::internal {
namespace {

constexpr int kScale = 20;  // the measured scale that fits this machine (22 has 67M edges)

// A measured operation and what models it: the framework baseline and the graph operator.
struct Mapping {
  std::string_view measured, baseline, op, kernel;
};
constexpr Mapping kMappings[] = {
    {"csr_spmm", "dgl", "spmm-sum", "cuSPARSE CSR SpMM (DGL's sum)"},
    {"gather_index_add_sorted", "pyg", "spmm-sum", "gather + index_add_ (PyG's sum)"},
    {"scatter_reduce_max_sorted", "pyg", "spmm-max", "gather + scatter_reduce_ max (PyG's max)"},
};

// The measured graph regenerated: directed, duplicates and self-loops kept (16.7M edges).
Result<gnn::GraphProfile> MeasuredGraph(std::string_view name) {
  gnn::RmatOptions o{.scale = kScale, .edge_factor = 16};
  if (name == "uniform") o.a = o.b = o.c = 0.25;
  DLSIM_ASSIGN_OR_RETURN(gnn::EdgeList e, gnn::GenerateRmat(o));
  DLSIM_ASSIGN_OR_RETURN(
      gnn::Graph g,
      gnn::BuildGraph(e, {.undirected = false, .drop_self_loops = false, .drop_duplicates = false}));
  return gnn::ProfileGraph(g);
}

const Mapping* Find(std::string_view op) {
  for (const Mapping& m : kMappings) {
    if (m.measured == op) return &m;
  }
  return nullptr;
}

// Geometric mean of predicted / measured per kernel family.
struct Tallies {
  std::map<std::string, std::pair<double, int>, std::less<>> log_sum;
  void Add(std::string_view kernel, double ratio) {
    auto& [sum, n] = log_sum[std::string(kernel)];
    sum += std::log(ratio);
    ++n;
  }
};

}  // namespace

Result<MeasuredAggregation> H200Aggregation(const ReproEnv& env, const BaselineModels& models,
                                            const gnn::KernelModelParams& params) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::H200GnnAggregationCsv(), "gnn_aggregation.csv"));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, env.catalogs->hardware.FindGpu("h200"));
  std::map<std::string, gnn::GraphProfile, std::less<>> graphs;
  MeasuredAggregation out;
  Tallies tallies;
  double hub_step_bound_ns = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(std::string op, t.Text(r, "op"));
    DLSIM_ASSIGN_OR_RETURN(double scale, t.Number(r, "scale"));
    const Mapping* m = Find(op);
    if (m == nullptr || scale != kScale) continue;
    DLSIM_ASSIGN_OR_RETURN(std::string graph, t.Text(r, "graph"));
    DLSIM_ASSIGN_OR_RETURN(double width, t.Number(r, "width"));
    DLSIM_ASSIGN_OR_RETURN(double ms, t.Number(r, "ms"));
    DLSIM_ASSIGN_OR_RETURN(double measured_hub, t.Number(r, "max_in_degree"));
    if (!graphs.contains(graph)) {
      DLSIM_ASSIGN_OR_RETURN(graphs[graph], MeasuredGraph(graph));
    }
    const gnn::GraphProfile& prof = graphs[graph];
    DLSIM_ASSIGN_OR_RETURN(auto gop, models.ops.Create(std::string(m->op)));
    const gnn::StaticKernelPolicy& baseline = m->baseline == "dgl" ? models.dgl : models.pyg;
    DLSIM_ASSIGN_OR_RETURN(
        gnn::OpChoice c, gnn::CostStatic(prof, gop->Loops(static_cast<int>(width)), baseline, *gpu, params));
    const double measured_us = ms * 1e3, predicted_us = c.time_ns * 1e-3;
    tallies.Add(m->kernel, predicted_us / measured_us);
    if (m->measured == "csr_spmm" && graph == "rmat" && width == 16)  // one element per lane and edge
      hub_step_bound_ns = ms * 1e6 / measured_hub;
    out.rows.push_back({{"graph", fmt::format("{}-{}-e16", graph, kScale)},
                        {"max_in_degree", prof.max_in_degree},
                        {"measured_max_in_degree", measured_hub},
                        {"kernel", m->kernel},
                        {"width", width},
                        {"measured_us", measured_us},
                        {"predicted_us", predicted_us},
                        {"ratio", predicted_us / measured_us},
                        {"bound", c.loops[0].bound}});
  }
  for (const auto& [kernel, s] : tallies.log_sum)
    out.summary +=
        fmt::format("{}{}: {:.2f}x", out.summary.empty() ? "" : "; ", kernel, std::exp(s.first / s.second));
  out.hub_step_bound_ns = hub_step_bound_ns;
  out.summary += fmt::format(
      "; the measured cuSPARSE SpMM on R-MAT at 16 features lasts {:.1f} ns per edge of its hub row: a warp "
      "walking that row one step after another could take no more than that a step (we assume {:.0f} ns)",
      hub_step_bound_ns, params.step_latency_ns);
  return out;
}

}  // namespace dlsim::repro::internal
