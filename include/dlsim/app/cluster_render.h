// Renderings of a cluster run: the terminal report, the side-by-side comparison, JSON, and the
// CSV files of per-job records and of the utilisation series.
#ifndef DLSIM_APP_CLUSTER_RENDER_H_
#define DLSIM_APP_CLUSTER_RENDER_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "dlsim/cluster/options.h"
#include "dlsim/cluster/result.h"
#include "dlsim/cluster/sweep.h"
#include "dlsim/report/html_page.h"

namespace dlsim::app {

std::string FormatClusterReport(const cluster::ClusterOptions& options, const cluster::ClusterResult& r);
// One row per policy: JCT and queuing percentiles, makespan, utilisation, fairness, preemptions.
std::string FormatClusterComparison(const std::vector<cluster::ClusterResult>& results);
// One row per sweep point, in sweep order.
std::string FormatClusterSweep(const std::vector<cluster::SweepRow>& rows);
// {"sweep": {policies, load_scales, seeds, jobs_drawn_per_seed}, "rows": [one per point, in sweep order]};
// the command adds dlsim_version and the resolved inputs.
nlohmann::ordered_json ClusterSweepJson(const cluster::SweepSpec& spec,
                                        const std::vector<cluster::SweepRow>& rows);
nlohmann::ordered_json ClusterJson(const cluster::ClusterResult& r, bool records);
void WriteJobsCsv(const cluster::ClusterResult& r, std::ostream& out);
void WriteSeriesCsv(const cluster::ClusterResult& r, std::ostream& out);

// The HTML report (`dlsim cluster --html`, also with --compare): per policy, busy GPUs and
// waiting jobs over time and the CDF of job completion times of the measured jobs.
report::HtmlPage ClusterHtml(const std::string& title, const std::vector<cluster::ClusterResult>& results);

}  // namespace dlsim::app

#endif  // DLSIM_APP_CLUSTER_RENDER_H_
