// GNN data-pipeline scenarios (`dlsim gnn FILE`): YAML -> validated gnn::GnnOptions.
//
//   name: bgl-rmat22
//   gnn:
//     graph: {rmat: {scale: 22, edge_factor: 16, seed: 1}}     # or {file: F, format: auto, directed: false}
//     features: {dim: 128, dtype: fp32}
//     split: {train: 0.1, val: 0.05, test: 0.05, seed: 1}
//     model: {layer: sage, hidden: 256, classes: 47}
//     sampler: {name: uniform, fanouts: [25, 10]}
//     batch: {size: 1024, order: bfs, sequences: 4}
//     hardware: {node: dgx-a100, machines: 4, gpus_per_machine: 8}
//     partition: {name: bgl, blocks_per_part: 64}
//     store: partitioned                                      # host | partitioned | disk
//     cache: {policy: fifo, gpu_gib: 2, host_gib: 16}
//     pipeline: {pipelined: true, isolation: true, sample_ns_per_edge: 50, gather_gb_per_s_per_core: 5}
//     compare: [{name: dgl-like, order: shuffle, cache: none, partition: hash, isolation: false}]
//
// Every key, default and unit: docs/gnn.md. A graph file is read here (relative to the scenario's
// folder) with io::ParseEdgeList; its errors keep their file and line. Policy names are checked
// against the names given by the caller (the registries' contents), with a suggestion.
#ifndef DLSIM_IO_GNN_SCENARIO_H_
#define DLSIM_IO_GNN_SCENARIO_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/gnn/options.h"
#include "dlsim/hw/catalog.h"

namespace dlsim::io {

struct GnnNames {
  std::vector<std::string> samplers, orders, caches, partitioners, topology_caches;
};
// The names of the gnn module's builtin registries.
GnnNames BuiltinGnnNames();

struct GnnScenario {
  gnn::GnnOptions options;
  std::vector<gnn::GnnVariant> compare;  // empty: the caller's default set
};

// Errors: kParse for malformed YAML or a malformed graph file, kNotFound for a missing graph file,
// kInvalidArgument otherwise (every error found, in file order).
Result<GnnScenario> ParseGnnScenario(std::string_view text, std::string file_name,
                                     const hw::Catalog& hardware, const GnnNames& names,
                                     const std::string& base_dir = "");
Result<GnnScenario> LoadGnnScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                        const GnnNames& names);

// One line: "rmat-22 (2^22 nodes); uniform [25, 10]; bfs batches of 1024; fifo cache; 4 x dgx-a100".
std::string SummarizeGnnOptions(const gnn::GnnOptions& o);

}  // namespace dlsim::io

#endif  // DLSIM_IO_GNN_SCENARIO_H_
