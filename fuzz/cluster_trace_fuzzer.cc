// Fuzz target: the cluster trace readers (every format of cluster/trace.h), the openb node-list
// reader and the demand-curve readers (cluster/capacity.h). On success it does what `dlsim
// cluster` does next: simulates the first jobs (at most 200, so one input stays fast) on a small
// two-type cluster under FIFO and LAS; a demand curve drives the k80 nodes as a lendable pool
// under FIFO, Aryl and EasyScale.
#include <cstddef>
#include <cstdint>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/cluster/capacity.h"
#include "dlsim/cluster/simulate.h"
#include "dlsim/cluster/trace.h"
#include "fuzz_env.h"

namespace {

void SimulateFirst(std::vector<dlsim::cluster::JobSpec> jobs, const dlsim::cluster::ClusterSpec& spec) {
  if (jobs.size() > 200) jobs.resize(200);
  dlsim::cluster::ClusterOptions o;
  o.cluster = spec;
  o.jobs = std::move(jobs);
  const dlsim::catalog::Catalogs none;
  for (const char* policy : {"fifo", "las"}) {
    o.policy = policy;
    (void)dlsim::cluster::Simulate(o, none, nullptr);
  }
}

// Three small jobs (one elastic) on the cluster with nodes 2 and 3 lent by `demand`.
void SimulateLoaning(std::vector<dlsim::cluster::DemandStep> demand,
                     const dlsim::cluster::ClusterSpec& spec) {
  dlsim::cluster::ClusterOptions o;
  o.cluster = spec;
  for (int i = 0; i < 3; ++i) {
    dlsim::cluster::JobSpec j;
    j.id = i;
    j.arrival = dlsim::TimePoint::Start() + dlsim::Seconds(30.0 * i);
    j.gpus = 2 + 2 * i;
    j.work = 600;
    o.jobs.push_back(j);
  }
  o.jobs[0].min_gpus = 1, o.jobs[0].max_gpus = 8;
  dlsim::cluster::CapacityOptions cap;
  cap.pool = {2, 3};
  cap.demand = std::move(demand);
  cap.checkpoint_interval = dlsim::Seconds(100);
  if (!cap.demand.empty()) cap.period = cap.demand.back().at.SinceStart() + dlsim::Seconds(60);
  o.capacity = cap;
  const dlsim::catalog::Catalogs none;
  for (const char* policy : {"fifo", "aryl", "easyscale"}) {
    o.policy = policy;
    (void)dlsim::cluster::Simulate(o, none, nullptr);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim::cluster;
  const std::string_view text = dlsim::fuzz::Text(data, size);
  ClusterSpec spec;
  spec.AddNodes("a", "v100", 2, 4, 64000, 262144, 0);
  spec.AddNodes("b", "k80", 2, 4, 0, 0, 0);
  for (const auto& [name, format] : kTraceFormatNames) {
    TraceOptions o;
    o.format = format;
    auto jobs = ParseTrace(text, "fuzz-trace", o, spec);
    if (jobs.ok() && format != TraceFormat::kGavel) SimulateFirst(std::move(jobs).value(), spec);
  }
  (void)ParseNodeList(text, "fuzz-nodes.csv", 4);
  if (auto curve = ParseDemandCurve(text, "fuzz-demand.csv", 2); curve.ok()) SimulateLoaning(*curve, spec);
  if (auto qps = DemandFromQps(text, "fuzz-qps.csv", {}, 2); qps.ok()) SimulateLoaning(*qps, spec);
  return 0;
}
