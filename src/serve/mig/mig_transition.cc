#include "dlsim/serve/mig/mig_transition.h"

#include <algorithm>
#include <limits>

namespace dlsim::serve {
namespace {

constexpr double kEps = 1e-9;

Status CheckConfig(const MigServingProblem& p, const GpuConfig& c) {
  const bool part_ok = c.partition >= -1 && c.partition < static_cast<int>(p.partitions.size());
  bool services_ok = true;
  for (int s : c.service) services_ok = services_ok && s >= -1 && s < static_cast<int>(p.services.size());
  if (part_ok && services_ok) return Status::Ok();
  return Error::InvalidArgument("GPU configuration (partition " + std::to_string(c.partition) +
                                ") does not belong to the MIG-serving problem");
}

int Started(const GpuConfig& c) {
  return static_cast<int>(std::count_if(c.service.begin(), c.service.end(), [](int s) { return s >= 0; }));
}

// What reconfiguring `from` into `to` takes down, brings up, and costs.
struct Change {
  std::vector<double> lost, gained;
  Duration time;
};

Change Reconfigure(const MigServingProblem& p, const GpuConfig& from, const GpuConfig& to,
                   const MigTransitionOptions& o) {
  Change c;
  if (from.partition >= 0 && from.partition == to.partition) {
    GpuConfig down{from.partition, std::vector<int>(from.service.size(), -1)}, up = down;
    for (size_t i = 0; i < from.service.size(); ++i) {
      if (from.service[i] == to.service[i]) continue;
      down.service[i] = from.service[i];
      up.service[i] = to.service[i];
    }
    c.lost = Contribution(p, down);
    c.gained = Contribution(p, up);
    c.time = (Started(down) > 0 ? o.drain : Duration::Zero()) + o.load * static_cast<int64_t>(Started(up));
    return c;
  }
  c.lost = Contribution(p, from);
  c.gained = Contribution(p, to);
  c.time = o.drain + o.repartition + o.load * static_cast<int64_t>(Started(to));
  return c;
}

bool Safe(const std::vector<double>& served, const std::vector<double>& lost,
          const std::vector<double>& floor) {
  for (size_t s = 0; s < served.size(); ++s)
    if (served[s] - lost[s] < floor[s] * (1 - kEps) - kEps) return false;
  return true;
}

double Sum(const std::vector<double>& v) {
  double t = 0;
  for (double x : v) t += x;
  return t;
}

// The controller's state while it plans.
struct Planner {
  const MigServingProblem& p;
  const MigTransitionOptions& o;
  MigTransition out;
  std::vector<GpuConfig> gpus;  // every GPU used so far, by index
  std::vector<int> old;         // running GPUs not yet turned into a target
  std::vector<GpuConfig> pending;
  std::vector<double> served;
  int running = 0, limit = 0;

  void Record(MigTransitionStep::Kind k, int gpu, const GpuConfig& before, const GpuConfig& after,
              Duration t) {
    out.steps.push_back({k, gpu, before, after, t, served});
    out.total += t;
    out.peak_gpus = std::max(out.peak_gpus, running);
  }

  // The cheapest safe exchange (then the least throughput lost); false when none is safe.
  bool Exchange() {
    size_t best_t = 0, best_g = 0;
    Change best;
    bool found = false;
    for (size_t t = 0; t < pending.size(); ++t) {
      for (size_t g = 0; g < old.size(); ++g) {
        Change c = Reconfigure(p, gpus[old[g]], pending[t], o);
        if (!Safe(served, c.lost, out.floor)) continue;
        if (found && (c.time > best.time || (c.time == best.time && Sum(c.lost) >= Sum(best.lost)))) continue;
        best = std::move(c), best_t = t, best_g = g, found = true;
      }
    }
    if (!found) return false;
    for (size_t s = 0; s < served.size(); ++s) served[s] += best.gained[s] - best.lost[s];
    const int gpu = old[best_g];
    const GpuConfig before = gpus[gpu];
    gpus[gpu] = pending[best_t];
    old.erase(old.begin() + static_cast<std::ptrdiff_t>(best_g));
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(best_t));
    Record(MigTransitionStep::Kind::kExchange, gpu, before, gpus[gpu], best.time);
    return true;
  }

  bool AddGpu() {
    if (running >= limit) return false;
    const std::vector<double> gain = Contribution(p, pending.front());
    for (size_t s = 0; s < served.size(); ++s) served[s] += gain[s];
    gpus.push_back(pending.front());
    pending.erase(pending.begin());
    ++running;
    Record(MigTransitionStep::Kind::kAddGpu, static_cast<int>(gpus.size()) - 1, GpuConfig{}, gpus.back(),
           o.repartition + o.load * static_cast<int64_t>(Started(gpus.back())));
    return true;
  }

  void Compact() {
    for (int gpu : old) {
      const std::vector<double> lost = Contribution(p, gpus[gpu]);
      for (size_t s = 0; s < served.size(); ++s) served[s] -= lost[s];
      --running;
      Record(MigTransitionStep::Kind::kReleaseGpu, gpu, gpus[gpu], GpuConfig{}, o.drain);
    }
    old.clear();
  }
};

// Matches identical configurations (kept), leaving the old GPUs and the targets still to place.
void KeepIdentical(Planner& pl, const MigDeployment& to) {
  std::vector<bool> used(pl.gpus.size(), false);
  for (const GpuConfig& t : to.gpus) {
    bool kept = false;
    for (size_t g = 0; g < pl.gpus.size() && !kept; ++g) {
      if (used[g] || !(pl.gpus[g] == t)) continue;
      used[g] = kept = true;
      ++pl.out.kept;
    }
    if (!kept) pl.pending.push_back(t);
  }
  for (size_t g = 0; g < pl.gpus.size(); ++g)
    if (!used[g]) pl.old.push_back(static_cast<int>(g));
}

}  // namespace

std::string_view MigTransitionStepName(MigTransitionStep::Kind k) {
  switch (k) {
    case MigTransitionStep::Kind::kExchange:
      return "exchange";
    case MigTransitionStep::Kind::kAddGpu:
      return "add";
    case MigTransitionStep::Kind::kReleaseGpu:
      return "release";
  }
  return "?";
}

Result<MigTransition> PlanMigTransition(const MigServingProblem& p, const MigDeployment& from,
                                        const MigDeployment& to, const MigTransitionOptions& options) {
  for (const auto* d : {&from, &to})
    for (const GpuConfig& c : d->gpus) DLSIM_RETURN_IF_ERROR(CheckConfig(p, c));
  Planner pl{p, options, {}, from.gpus, {}, {}, Served(p, from.gpus)};
  pl.running = static_cast<int>(from.gpus.size());
  pl.limit = static_cast<int>(std::max(from.gpus.size(), to.gpus.size())) + std::max(0, options.spare_gpus);
  pl.out.peak_gpus = pl.running;
  pl.out.floor.resize(p.services.size());
  for (size_t s = 0; s < p.services.size(); ++s)
    pl.out.floor[s] = std::min(pl.served[s], p.services[s].demand_rps);
  KeepIdentical(pl, to);
  while (!pl.pending.empty()) {
    if (pl.Exchange() || pl.AddGpu()) continue;
    return Error{ErrorCode::kInfeasible,
                 "MIG transition: no safe step for '" + ConfigString(p, pl.pending.front()) + "' with " +
                     std::to_string(options.spare_gpus) +
                     " spare GPU(s): every exchange would drop a service below its floor"};
  }
  pl.Compact();
  return std::move(pl.out);
}

}  // namespace dlsim::serve
