// The renderings of a GNN pipeline result, in one place: the terminal report, the JSON object of
// `dlsim gnn --json` (and of --compare) and the HTML page of --html. Printing only.
#ifndef DLSIM_APP_GNN_RENDER_H_
#define DLSIM_APP_GNN_RENDER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dlsim/gnn/options.h"
#include "dlsim/gnn/simulate.h"
#include "dlsim/report/html_page.h"
#include "dlsim/report/timeline_recorder.h"

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

// The page of one epoch: summary, busy time per stage against the epoch, the first batches' timeline
// (from `timeline`, which the run fed), feature bytes per tier, the topology/feature split curve when it
// was searched, and the terminal report.
report::HtmlPage GnnHtml(const gnn::GnnOptions& options, const gnn::GnnResult& r,
                         const report::TimelineRecorder& timeline);
// The page of --compare: epoch and GPU hit ratio per variant, and the comparison table.
report::HtmlPage GnnCompareHtml(const std::string& name, const std::vector<gnn::GnnVariant>& variants,
                                const std::vector<gnn::GnnResult>& results);

}  // namespace dlsim::app

#endif  // DLSIM_APP_GNN_RENDER_H_
