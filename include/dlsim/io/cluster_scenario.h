// Cluster scenarios (`dlsim cluster FILE`): YAML -> validated cluster::ClusterOptions.
//
//   cluster:
//     nodes:                                   # groups of identical nodes
//       - {node: dgx-a100, count: 64}          # a catalog node: GPU, GPUs, CPU, memory from the catalog
//       - {gpu: v100, gpus: 4, count: 36}      # or free-form (gpu is a type name; cpu_cores, memory_gib)
//     node_list: nodes.csv                     # or an openb node list instead of `nodes`
//     nodes_per_rack: 8
//   jobs:
//     trace: {format: philly, file: philly.csv, sort: true, load_scale: 1, limit: 0, group: 6214e9}
//     synthetic: {generator: gavel, jobs: 1000, load: 0.8, seed: 1}      # or jobs_per_hour
//     list: [{arrival_s: 0, gpus: 8, duration_s: 3600}, {arrival_s: 5, gpus: 8, steps: 100, speed: llama}]
//     throughputs: simulation_throughputs.json   # Gavel's table: speeds per job type
//     training: [{name: llama, scenario: llama3_8b.yaml}]   # speeds from dlsim training scenarios
//   policy: {name: las, placement: consolidated, round_s: 60, queue_thresholds: [3200],
//            starvation: 0, backfill: true, restart_overhead_s: 0, seed: 1}
//   report: {sample_interval_s: 3600, measure_from: 0, measure_to: 0}
//
// Every key, default, unit and range: docs/cluster.md. Relative paths are relative to the
// scenario's folder. Errors name the file, line and column (yaml_reader.h); trace-file errors
// name the trace file, line and column. `catalogs` must outlive the options (training speeds
// keep a reference).
#ifndef DLSIM_IO_CLUSTER_SCENARIO_H_
#define DLSIM_IO_CLUSTER_SCENARIO_H_

#include <string>
#include <string_view>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/cluster/options.h"
#include "dlsim/cluster/sweep.h"
#include "dlsim/core/result.h"

namespace dlsim::io {

Result<cluster::ClusterOptions> ParseClusterScenario(std::string_view text, std::string file_name,
                                                     const catalog::Catalogs& catalogs,
                                                     const std::string& base_dir = "");
Result<cluster::ClusterOptions> LoadClusterScenarioFile(const std::string& path,
                                                        const catalog::Catalogs& catalogs);

// The scenario's `sweep:` section ({policies: [fifo, las], load_scales: [0.5, 1, 2], seeds: [1, 2]};
// policies default to the scenario's policy, load scales and seeds to [1]). For a synthetic trace,
// `regenerate` draws the jobs again for each seed. Errors as ParseClusterScenario; a scenario
// without `sweep:` gives the one-point sweep of its own policy.
Result<cluster::SweepSpec> LoadClusterSweep(const std::string& path, const cluster::ClusterOptions& options);
// The same from the scenario's text (`file_name` in messages; relative paths from `base_dir`).
Result<cluster::SweepSpec> ParseClusterSweep(std::string_view text, const std::string& file_name,
                                             const cluster::ClusterOptions& options,
                                             const std::string& base_dir = "");

// "fifo on 512 GPUs (64 nodes, 1 GPU type); 82,247 jobs; consolidated placement".
std::string SummarizeClusterOptions(const cluster::ClusterOptions& o);

}  // namespace dlsim::io

#endif  // DLSIM_IO_CLUSTER_SCENARIO_H_
