// The resolved scenario of a run, as JSON keyed as the scenario file keys it: every key with its value after
// defaults, catalog entries, engine and stack profiles and command-line overrides. Each command's --json
// output carries it as `inputs`, so a result can be traced to what produced it a week later, and re-run: JSON
// is YAML, so
//
//   dlsim serve s.yaml --json | jq .inputs > resolved.yaml && dlsim serve resolved.yaml --json
//
// gives the same numbers. That holds for training and plan scenarios always, and for serving scenarios whose
// workload is generated; what came from a data file (a request trace, a token-length column, a cluster's job
// trace, a graph's edge list) is summarised instead (counts, the file's name), and a MIG partition is shown
// as the instance it made. docs/outputs.md, "Resolved inputs".
#ifndef DLSIM_IO_RESOLVED_SCENARIO_H_
#define DLSIM_IO_RESOLVED_SCENARIO_H_

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "dlsim/cluster/options.h"
#include "dlsim/gnn/options.h"
#include "dlsim/io/plan_scenario.h"
#include "dlsim/serve/options.h"
#include "dlsim/train/options.h"

namespace dlsim::io {

// A YAML document (as dlsim's writers write it) as JSON: maps, lists, and scalars typed as the scenario
// readers type them (true/false, null, integers, finite numbers; a quoted scalar stays text). Malformed YAML
// gives a JSON string holding the text (never thrown).
nlohmann::ordered_json YamlToJson(std::string_view yaml);

nlohmann::ordered_json ResolvedTrainScenario(const train::TrainOptions& o);
// The training scenario plus its `search:` section.
nlohmann::ordered_json ResolvedPlanScenario(const train::TrainOptions& base, const plan::PlanOptions& plan);
nlohmann::ordered_json ResolvedServeScenario(const serve::ServeOptions& o);
// The policy's own keys come from the builtin policy registry (a custom policy object shows its name only).
nlohmann::ordered_json ResolvedClusterScenario(const cluster::ClusterOptions& o);
// With `compare`: the variants compared (gnn --compare), as the scenario's `compare:` list keys them.
nlohmann::ordered_json ResolvedGnnScenario(const gnn::GnnOptions& o,
                                           const std::vector<gnn::GnnVariant>& compare = {});

}  // namespace dlsim::io

#endif  // DLSIM_IO_RESOLVED_SCENARIO_H_
