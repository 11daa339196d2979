// The resolved cluster scenario (io/resolved_scenario.h): the machines as groups of identical nodes, the
// jobs summarised (they come from a trace or a generator), the policy with every key it reads (its own keys
// from the policy registry, set or default), and the report window.
#include <algorithm>
#include <string>
#include <variant>

#include "dlsim/cluster/policy.h"
#include "dlsim/io/resolved_scenario.h"

namespace dlsim::io {
namespace {

using nlohmann::ordered_json;

// "dgx-a100-0003" -> "dgx-a100": the group a node was added with (ClusterSpec::AddNodes numbers them).
std::string GroupName(const std::string& node) {
  const size_t dash = node.rfind('-');
  if (dash == std::string::npos || dash + 1 == node.size()) return node;
  const bool digits = std::all_of(node.begin() + static_cast<std::ptrdiff_t>(dash) + 1, node.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  return digits ? node.substr(0, dash) : node;
}

ordered_json NodeGroupJson(const cluster::ClusterSpec& c, const cluster::ClusterNode& n) {
  return {{"name", GroupName(n.name)},
          {"gpu", c.gpu_types()[static_cast<size_t>(n.gpu_type)]},
          {"gpus", n.gpus},
          {"count", 1},
          {"cpu_cores", static_cast<double>(n.cpu_milli) / 1000},
          {"memory_gib", static_cast<double>(n.memory_mib) / 1024},
          {"nic_gbps", n.nic_bytes_per_s * 8 / 1e9}};
}

// Whether `a` and `b` are identical nodes of one group (AddNodes numbers a group's names).
bool SameGroup(const cluster::ClusterNode& a, const cluster::ClusterNode& b) {
  return GroupName(a.name) == GroupName(b.name) && a.gpu_type == b.gpu_type && a.gpus == b.gpus &&
         a.cpu_milli == b.cpu_milli && a.memory_mib == b.memory_mib && a.nic_bytes_per_s == b.nic_bytes_per_s;
}

ordered_json ClusterJson(const cluster::ClusterSpec& c) {
  ordered_json groups = ordered_json::array();
  const std::vector<cluster::ClusterNode>& nodes = c.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0 && SameGroup(nodes[i - 1], nodes[i]))
      groups.back()["count"] = groups.back()["count"].get<int64_t>() + 1;
    else
      groups.push_back(NodeGroupJson(c, nodes[i]));
  }
  return {{"nodes", groups}, {"racks", c.racks()}, {"gpus", c.total_gpus()}};
}

ordered_json JobsJson(const std::vector<cluster::JobSpec>& jobs) {
  int64_t gpus = 0, steps_jobs = 0, elastic = 0;
  double first = 0, last = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const cluster::JobSpec& j = jobs[i];
    gpus += j.gpus;
    steps_jobs += j.speed.empty() ? 0 : 1;
    elastic += cluster::IsElastic(j) ? 1 : 0;
    const double at = j.arrival.ToSeconds();
    first = i == 0 ? at : std::min(first, at);
    last = i == 0 ? at : std::max(last, at);
  }
  return {{"count", jobs.size()},    {"gpus_requested", gpus},   {"steps_jobs", steps_jobs},
          {"elastic_jobs", elastic}, {"first_arrival_s", first}, {"last_arrival_s", last}};
}

ordered_json ParamJson(const cluster::ParamSet& set, const cluster::ParamSpec& spec) {
  if (std::holds_alternative<bool>(spec.fallback)) return set.Flag(spec);
  if (std::holds_alternative<double>(spec.fallback)) return set.Number(spec);
  if (std::holds_alternative<std::string>(spec.fallback)) return set.Text(spec);
  return set.Numbers(spec);
}

ordered_json PolicyJson(const cluster::ClusterOptions& o) {
  ordered_json j = {{"name", o.policy},
                    {"placement", o.placement},
                    {"round_s", o.policy_params.round.ToSeconds()},
                    {"backfill", o.policy_params.backfill},
                    {"rounds_only", o.policy_params.rounds_only},
                    {"restart_overhead_s", o.restart_overhead.ToSeconds()},
                    {"seed", o.seed}};
  if (o.custom_policy) return j;
  for (const cluster::ParamSpec& spec : cluster::BuiltinPolicies().Keys(o.policy))
    j[spec.key] = ParamJson(o.policy_params.own, spec);
  return j;
}

}  // namespace

ordered_json ResolvedClusterScenario(const cluster::ClusterOptions& o) {
  ordered_json j;
  j["cluster"] = ClusterJson(o.cluster);
  if (o.capacity) {
    const cluster::CapacityOptions& c = *o.capacity;
    j["cluster"]["lendable"] = {{"pool_nodes", c.pool.size()},
                                {"demand_steps", c.demand.size()},
                                {"period_s", c.period.ToSeconds()},
                                {"loan", c.loan},
                                {"checkpoint_interval_s", c.checkpoint_interval.ToSeconds()}};
  }
  j["jobs"] = JobsJson(o.jobs);
  j["policy"] = PolicyJson(o);
  j["report"] = {{"sample_interval_s", o.sample_interval.ToSeconds()},
                 {"measure_from", o.measure_from},
                 {"measure_to", o.measure_to}};
  return j;
}

}  // namespace dlsim::io
