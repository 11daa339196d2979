// The renderings of a GNN pipeline result, in one place: the terminal report and the JSON object of
// `dlsim gnn --json` (and of --compare). Printing only.
#ifndef DLSIM_APP_GNN_RENDER_H_
#define DLSIM_APP_GNN_RENDER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dlsim/gnn/options.h"
#include "dlsim/gnn/simulate.h"

namespace dlsim::app {

// At least feasible (and reason), graph {name, nodes, edges, ...}, epoch_s, fill_s, bottleneck,
// stages [{name, busy_s, per_batch_s, utilisation, cores}], cache {policy, gpu_hit_ratio, ...},
// partition {...}, bytes {gpu, nvlink, host, remote, disk}.
nlohmann::ordered_json GnnJson(const gnn::GnnResult& r);
// {"variants": [{"name": ..., GnnJson...}, ...]}
nlohmann::ordered_json GnnCompareJson(const std::vector<gnn::GnnVariant>& variants,
                                      const std::vector<gnn::GnnResult>& results);

std::string FormatGnnReport(const gnn::GnnOptions& options, const gnn::GnnResult& r);
std::string FormatGnnCompare(const std::vector<gnn::GnnVariant>& variants,
                             const std::vector<gnn::GnnResult>& results);

}  // namespace dlsim::app

#endif  // DLSIM_APP_GNN_RENDER_H_
