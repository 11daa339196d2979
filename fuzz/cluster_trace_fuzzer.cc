// Fuzz target: the cluster trace readers (every format of cluster/trace.h) and the openb node-list
// reader. On success it does what `dlsim cluster` does next: simulates the first jobs (at most
// 200, so one input stays fast) on a small two-type cluster under FIFO and LAS.
#include <cstddef>
#include <cstdint>

#include "dlsim/catalog/catalogs.h"
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
  return 0;
}
