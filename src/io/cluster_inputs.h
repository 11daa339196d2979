// The cluster scenario's job attributes that come from data tables (private to io): input
// preprocessing classes (cluster/input_classes.h) and learning-rate tuners (cluster/lr_tuner.h).
//
//   jobs:
//     input_classes: ../cluster/input_costs.csv   # trace/synthetic jobs draw a class by share
//     input_seed: 1                               # the draw's seed (default 1)
//     input_cost_scale: 1                         # CPU costs x this (0..1000)
//     lr_tuner: {name: autolrs, task: mlp-teacher, table: my_tuner_steps.csv}
//     list: [{..., input_class: image-light}, {..., input_core_s: 2.5, input_bytes: 1e6},
//            {..., lr_tuner: autolrs, lr_task: mlp-teacher}]
#ifndef DLSIM_SRC_IO_CLUSTER_INPUTS_H_
#define DLSIM_SRC_IO_CLUSTER_INPUTS_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/cluster/input_classes.h"
#include "dlsim/cluster/lr_tuner.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {

// Reads the data file named by `key` of `m` (relative to base_dir); nullopt when the key is absent
// or the file unreadable (the error is recorded at the key). `path_out`: the resolved path.
std::optional<std::string> ReadDataFile(const MapReader& m, std::string_view key, const std::string& base_dir,
                                        std::string* path_out = nullptr);

struct JobTables {
  std::optional<std::vector<cluster::InputClass>> input_classes;
  double input_cost_scale = 1;
  uint64_t input_seed = 1;
  std::optional<std::vector<cluster::LrTunerRow>> lr_rows;
  std::optional<cluster::LrTunerRow> lr_all;  // the `jobs.lr_tuner` row applied to every job
};

// Reads the table keys of `jobs` (files relative to base_dir); errors at their keys.
JobTables ReadJobTables(const MapReader& jobs, const std::string& base_dir);

// A listed job's own keys: input_class | input_core_s + input_bytes, lr_tuner + lr_task.
void ReadListedJobInputs(const MapReader& m, const JobTables& tables, cluster::JobSpec& job);

// Trace and synthetic jobs: a class each by share, and the scenario-wide tuner.
void ApplyJobTables(const JobTables& tables, bool listed, std::vector<cluster::JobSpec>& jobs);

}  // namespace dlsim::io

#endif  // DLSIM_SRC_IO_CLUSTER_INPUTS_H_
