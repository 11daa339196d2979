#include "dlsim/cluster/sweep.h"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <optional>
#include <thread>

#include "dlsim/core/strings.h"

namespace dlsim::cluster {
namespace {

Status CheckSpec(const SweepSpec& s) {
  const size_t points = s.policies.size() * s.load_scales.size() * s.seeds.size();
  if (points == 0)
    return Error::InvalidArgument("the sweep is empty: it needs policies, load scales and seeds");
  if (points > kMaxSweepPoints)
    return Error::InvalidArgument(
        fmt::format("the sweep has {} points; at most {}", points, kMaxSweepPoints));
  for (const std::string& p : s.policies)
    if (!BuiltinPolicies().Contains(p))
      return Error::NotFound("sweep: " + UnknownNameMessage("cluster policy", p, BuiltinPolicies().Names()));
  for (double l : s.load_scales)
    if (!(l > 0) || !std::isfinite(l))
      return Error::InvalidArgument(fmt::format("sweep: load scale {} must be > 0", l));
  return Status::Ok();
}

// The options of one point: the policy, the seed, the jobs (regenerated or shared) with their
// arrivals divided by the load scale.
Result<ClusterOptions> PointOptions(const ClusterOptions& base, const SweepSpec& s, const SweepRow& row) {
  ClusterOptions o = base;
  o.policy = row.policy;
  o.seed = row.seed;
  o.keep_records = false;
  if (s.regenerate) {
    DLSIM_ASSIGN_OR_RETURN(o.jobs, s.regenerate(row.seed));
  }
  for (JobSpec& j : o.jobs) j.arrival = TimePoint::Start() + Seconds(j.arrival.ToSeconds() / row.load_scale);
  return o;
}

}  // namespace

Result<std::vector<SweepRow>> Sweep(const ClusterOptions& options, const catalog::Catalogs& catalogs,
                                    const SweepSpec& spec, int threads, const ProgressFn& progress) {
  DLSIM_RETURN_IF_ERROR(CheckSpec(spec));
  std::vector<SweepRow> rows;
  for (const std::string& p : spec.policies)
    for (double l : spec.load_scales)
      for (uint64_t seed : spec.seeds) rows.push_back({p, l, seed, {}});
  std::vector<std::optional<Error>> errors(rows.size());
  std::atomic<size_t> next{0}, finished{0};
  auto work = [&] {
    for (size_t i = next++; i < rows.size(); i = next++) {
      Result<ClusterOptions> o = PointOptions(options, spec, rows[i]);
      Result<ClusterResult> r = o.ok() ? Simulate(*o, catalogs, nullptr) : Result<ClusterResult>(o.error());
      if (r.ok())
        rows[i].summary = r->summary;
      else
        errors[i] = r.error();
      if (progress) progress(++finished, rows.size());
    }
  };
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t n = std::min<size_t>(rows.size(), threads > 0 ? static_cast<size_t>(threads) : hw);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const auto& e : errors)
    if (e) return *e;
  return rows;
}

}  // namespace dlsim::cluster
