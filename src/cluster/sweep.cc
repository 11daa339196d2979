#include "dlsim/cluster/sweep.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <type_traits>

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
  for (JobSpec& j : o.jobs) {
    const double at = j.arrival.ToSeconds() / row.load_scale;
    if (!(at <= kMaxArrivalS))  // a small load scale stretches the arrivals past the clock
      return Error::InvalidArgument(fmt::format(
          "sweep: load scale {} puts job {}'s arrival at {:g} s; at most {:g} s (raise the load scale)",
          row.load_scale, j.id, at, kMaxArrivalS));
    j.arrival = TimePoint::Start() + Seconds(at);
  }
  return o;
}

// A point's outcome as bytes for the work map: 'o' and the summary's bytes (one binary on every
// rank), or 'e', the error code and its message.
static_assert(std::is_trivially_copyable_v<ClusterSummary>);

std::string EncodePoint(const Result<ClusterResult>& r) {
  if (!r.ok()) return std::string("e") + static_cast<char>(r.error().code) + r.error().message;
  std::string out(1 + sizeof(ClusterSummary), 'o');
  std::memcpy(out.data() + 1, &r->summary, sizeof(ClusterSummary));
  return out;
}

Status DecodePoint(const std::string& bytes, ClusterSummary& summary) {
  if (bytes.size() == 1 + sizeof(ClusterSummary) && bytes[0] == 'o') {
    std::memcpy(&summary, bytes.data() + 1, sizeof(ClusterSummary));
    return Status::Ok();
  }
  if (bytes.size() >= 2 && bytes[0] == 'e') return Error{static_cast<ErrorCode>(bytes[1]), bytes.substr(2)};
  return Error::Internal("sweep: a point's result was lost in transfer");
}

}  // namespace

Result<std::vector<SweepRow>> Sweep(const ClusterOptions& options, const catalog::Catalogs& catalogs,
                                    const SweepSpec& spec, WorkMap& map, const ProgressFn& progress) {
  DLSIM_RETURN_IF_ERROR(CheckSpec(spec));
  std::vector<SweepRow> rows;
  for (const std::string& p : spec.policies)
    for (double l : spec.load_scales)
      for (uint64_t seed : spec.seeds) rows.push_back({p, l, seed, {}});
  const std::vector<std::string> out = map.MapAll(
      rows.size(),
      [&](size_t i, int) {
        Result<ClusterOptions> o = PointOptions(options, spec, rows[i]);
        return EncodePoint(o.ok() ? Simulate(*o, catalogs, nullptr) : Result<ClusterResult>(o.error()));
      },
      progress);
  for (size_t i = 0; i < rows.size(); ++i) DLSIM_RETURN_IF_ERROR(DecodePoint(out[i], rows[i].summary));
  return rows;
}

Result<std::vector<SweepRow>> Sweep(const ClusterOptions& options, const catalog::Catalogs& catalogs,
                                    const SweepSpec& spec, int threads, const ProgressFn& progress) {
  std::unique_ptr<WorkMap> map = MakeThreadWorkMap(threads);
  return Sweep(options, catalogs, spec, *map, progress);
}

}  // namespace dlsim::cluster
