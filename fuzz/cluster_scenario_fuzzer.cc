// Fuzz target: the cluster scenario reader (`dlsim cluster FILE`, io::ParseClusterScenario), its sweep
// section
// (`--sweep`, io::ParseClusterSweep) and the policy and placement flags (`--policy`, `--placement`,
// `--compare`), the ways in issue 35 found hangs through. On success it runs what `dlsim cluster` runs next
// when the scenario is small (at most 4,096 GPUs; its first 200 jobs, or 8 priced by a speed book): the
// simulation under the scenario's policy and, for duration jobs, under each builtin policy and placement as a
// flag would set them, and a sweep of at most 8 points. A result must have finite figures, utilisation within
// [0, 1], and no more completed jobs than jobs.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlsim/cluster/placement.h"
#include "dlsim/cluster/policy.h"
#include "dlsim/cluster/simulate.h"
#include "dlsim/cluster/sweep.h"
#include "dlsim/io/cluster_scenario.h"
#include "fuzz_env.h"

namespace {

using dlsim::cluster::ClusterOptions;

void CheckResult(const dlsim::Result<dlsim::cluster::ClusterResult>& r, const std::string& what) {
  if (!r.ok()) return;
  const dlsim::cluster::ClusterSummary& s = r->summary;
  const bool sane = std::isfinite(s.makespan_s) && s.makespan_s >= 0 && std::isfinite(s.utilisation) &&
                    s.utilisation >= 0 && s.utilisation <= 1 + 1e-9 && std::isfinite(s.jct_s.mean) &&
                    s.jct_s.mean >= 0 && s.completed <= s.jobs;
  if (!sane)
    dlsim::fuzz::Fail(what + ": makespan " + std::to_string(s.makespan_s) + " s, utilisation " +
                      std::to_string(s.utilisation) + ", mean JCT " + std::to_string(s.jct_s.mean) +
                      ", completed " + std::to_string(s.completed) + " of " + std::to_string(s.jobs));
}

bool Small(const ClusterOptions& o) {
  return !o.jobs.empty() && o.cluster.total_gpus() <= 4096 && o.cluster.nodes().size() <= 1024;
}

// The first jobs only: 200 duration jobs, or 8 priced by a speed book (a Pollux or training-simulator speed
// is a model evaluated per allocation, seconds per job under the sanitizers).
void KeepFirstJobs(ClusterOptions& o) {
  const size_t keep = o.speeds ? 8 : 200;
  if (o.jobs.size() > keep) o.jobs.resize(keep);
}

// The scenario under each builtin policy (as --policy / --compare set it) and each placement (--placement).
void RunOverrides(ClusterOptions o) {
  const dlsim::catalog::Catalogs& cat = dlsim::fuzz::Catalogs();
  for (const std::string& policy : dlsim::cluster::BuiltinPolicies().Names()) {
    o.policy = policy;
    CheckResult(dlsim::cluster::Simulate(o, cat, nullptr), "policy " + policy);
  }
  for (const std::string& placement : dlsim::cluster::BuiltinPlacements().Names()) {
    o.placement = placement;
    CheckResult(dlsim::cluster::Simulate(o, cat, nullptr), "placement " + placement);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string_view text = fuzz::Text(data, size);
  const std::string dir = std::string(DLSIM_FUZZ_DATA_DIR) + "/scenarios";
  auto o = io::ParseClusterScenario(text, fuzz::ScenarioPath(), fuzz::Catalogs(), dir);
  if (!o.ok()) return 0;
  (void)io::SummarizeClusterOptions(*o);
  if (!Small(*o)) return 0;
  KeepFirstJobs(*o);
  o->keep_records = false;
  CheckResult(cluster::Simulate(*o, fuzz::Catalogs(), nullptr), "the scenario's policy");
  // Every policy and placement on duration jobs; jobs priced by a speed book (Gavel's table, the training
  // simulator) run under the scenario's own policy only, which keeps one input within the 10 s limit.
  if (o->speeds == nullptr) RunOverrides(*o);
  auto sweep = io::ParseClusterSweep(text, fuzz::ScenarioPath(), *o, dir);
  if (!sweep.ok() || sweep->policies.size() * sweep->load_scales.size() * sweep->seeds.size() > 8) return 0;
  if (sweep->regenerate) return 0;  // a synthetic draw per seed: its size is the scenario's, checked above
  (void)cluster::Sweep(*o, fuzz::Catalogs(), *sweep, 1);
  return 0;
}
