// MIG-serving's greedy: the configuration of highest utility for the unmet demand, one GPU at a
// time (Tan et al., arXiv 2109.11067, the optimiser's fast path).
#include "mig_greedy.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

#include "dlsim/core/strings.h"

namespace dlsim::serve::internal {
namespace {

double Utility(const MigServingProblem& p, const std::vector<double>& c, const std::vector<double>& unmet,
               double waste_penalty) {
  double u = 0;
  for (size_t m = 0; m < c.size(); ++m) {
    const double t = p.services[m].demand_rps;
    u += (std::min(c[m], unmet[m]) - waste_penalty * std::max(0.0, c[m] - unmet[m])) / t;
  }
  return u;
}

// Exhaustive search over the services of one partition's instances. Instances of the same
// profile are interchangeable, so their services are taken in non-decreasing order.
struct AssignmentSearch {
  const MigServingProblem& p;
  const std::vector<hw::MigInstance>& inst;
  const std::vector<double>& unmet;
  double waste_penalty;
  int64_t& evaluations;
  std::vector<int> cur, last_of_profile;
  std::vector<double> c;
  ScoredConfig best{-1e300, {}};

  void Run(size_t i) {
    if (i == inst.size()) {
      ++evaluations;
      const double u = Utility(p, c, unmet, waste_penalty);
      if (u > best.utility + 1e-12) best.utility = u, best.config.service = cur;
      return;
    }
    const int prof = inst[i].profile;
    const int saved = last_of_profile[prof];
    for (int s = saved; s < static_cast<int>(p.services.size()); ++s) {
      if (s >= 0 && p.throughput[s][prof] <= 0) continue;
      cur[i] = s;
      last_of_profile[prof] = s;
      if (s >= 0) c[s] += p.throughput[s][prof];
      Run(i + 1);
      if (s >= 0) c[s] -= p.throughput[s][prof];
    }
    last_of_profile[prof] = saved;
  }
};

ScoredConfig BestAssignment(const MigServingProblem& p, int part, const std::vector<double>& unmet,
                            double waste_penalty, int64_t& evaluations) {
  const auto& inst = p.partitions[part].instances();
  AssignmentSearch s{p,
                     inst,
                     unmet,
                     waste_penalty,
                     evaluations,
                     std::vector<int>(inst.size(), -1),
                     std::vector<int>(p.gpu.mig.size(), -1),
                     std::vector<double>(p.services.size(), 0.0)};
  s.Run(0);
  s.best.config.partition = part;
  return s.best;
}

ScoredConfig BestWholeGpu(const MigServingProblem& p, const std::vector<double>& unmet, double waste_penalty,
                          int64_t& evaluations) {
  ScoredConfig best{-1e300, {-1, {-1}}};
  for (size_t s = 0; s < p.services.size(); ++s) {
    if (p.whole_gpu_throughput[s] <= 0) continue;
    ++evaluations;
    std::vector<double> c(p.services.size(), 0.0);
    c[s] = p.whole_gpu_throughput[s];
    const double u = Utility(p, c, unmet, waste_penalty);
    if (u > best.utility + 1e-12) best = {u, {-1, {static_cast<int>(s)}}};
  }
  return best;
}

}  // namespace

std::vector<double> Unmet(const MigServingProblem& p, const std::vector<double>& served) {
  std::vector<double> out(p.services.size());
  for (size_t m = 0; m < out.size(); ++m) out[m] = std::max(0.0, p.services[m].demand_rps - served[m]);
  return out;
}

std::vector<ScoredConfig> BestConfigs(const MigServingProblem& p, const std::vector<double>& unmet,
                                      double waste_penalty, int64_t& evaluations) {
  std::vector<ScoredConfig> out;
  for (size_t part = 0; part < p.partitions.size(); ++part)
    out.push_back(BestAssignment(p, static_cast<int>(part), unmet, waste_penalty, evaluations));
  if (p.allow_whole_gpu) out.push_back(BestWholeGpu(p, unmet, waste_penalty, evaluations));
  std::stable_sort(out.begin(), out.end(), [](const ScoredConfig& a, const ScoredConfig& b) {
    return a.utility > b.utility + 1e-12;
  });
  return out;
}

namespace {

// The most one GPU can serve of each service (all its instances on that service, or the whole GPU).
std::vector<double> OneGpuBound(const MigServingProblem& p) {
  std::vector<double> out(p.services.size(), 0.0);
  for (size_t m = 0; m < out.size(); ++m) {
    if (p.allow_whole_gpu) out[m] = p.whole_gpu_throughput[m];
    for (const hw::MigPartition& part : p.partitions) {
      double sum = 0;
      for (const hw::MigInstance& inst : part.instances()) sum += p.throughput[m][inst.profile];
      out[m] = std::max(out[m], sum);
    }
  }
  return out;
}

// The first configuration (best fill per partition, then the whole GPU) that meets all of
// `unmet` on one GPU, if any: taking it ends the fill, which no other choice can beat. `bound`
// (OneGpuBound) skips the search while some service needs more than any one GPU gives it.
std::optional<GpuConfig> FinishingConfig(const MigServingProblem& p, const std::vector<double>& unmet,
                                         const std::vector<double>& bound, int64_t& evaluations) {
  for (size_t m = 0; m < unmet.size(); ++m)
    if (unmet[m] > bound[m]) return std::nullopt;
  for (const ScoredConfig& s : BestConfigs(p, unmet, 0.0, evaluations)) {
    const std::vector<double> c = Contribution(p, s.config);
    bool meets = true;
    for (size_t m = 0; m < c.size(); ++m) meets = meets && c[m] >= unmet[m];
    if (meets) return s.config;
  }
  return std::nullopt;
}

}  // namespace

Status GreedyFill(const MigServingProblem& p, double waste_penalty, std::vector<GpuConfig>& gpus,
                  int64_t& evaluations, bool finish) {
  std::vector<double> served = Served(p, gpus);
  const std::vector<double> bound = finish ? OneGpuBound(p) : std::vector<double>{};
  while (!MeetsDemand(p, served)) {
    const std::vector<double> unmet = Unmet(p, served);
    if (std::optional<GpuConfig> last =
            finish ? FinishingConfig(p, unmet, bound, evaluations) : std::nullopt) {
      gpus.push_back(*last);
      return Status::Ok();
    }
    std::vector<ScoredConfig> best = BestConfigs(p, unmet, waste_penalty, evaluations);
    // A small residual can make every utility negative (waste outweighs the fill): then the
    // configuration that fills most, without the penalty.
    if (best.empty() || best[0].utility <= 0) best = BestConfigs(p, unmet, 0.0, evaluations);
    if (best.empty() || best[0].utility <= 0) {
      DLSIM_RETURN_IF_ERROR(CheckServable(p));
      return Error::Internal("MIG-serving greedy: no configuration serves the unmet demand");
    }
    gpus.push_back(best[0].config);
    const std::vector<double> c = Contribution(p, best[0].config);
    for (size_t m = 0; m < served.size(); ++m) served[m] += c[m];
  }
  return Status::Ok();
}

void DropRedundant(const MigServingProblem& p, std::vector<GpuConfig>& gpus) {
  std::vector<double> served = Served(p, gpus);
  std::vector<size_t> order(gpus.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> weight(gpus.size());
  for (size_t g = 0; g < gpus.size(); ++g) {
    const std::vector<double> c = Contribution(p, gpus[g]);
    for (size_t m = 0; m < c.size(); ++m) weight[g] += c[m] / p.services[m].demand_rps;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] < weight[b]; });
  std::vector<bool> keep(gpus.size(), true);
  for (size_t g : order) {
    const std::vector<double> c = Contribution(p, gpus[g]);
    std::vector<double> without = served;
    for (size_t m = 0; m < c.size(); ++m) without[m] -= c[m];
    if (MeetsDemand(p, without)) keep[g] = false, served = without;
  }
  std::vector<GpuConfig> out;
  for (size_t g = 0; g < gpus.size(); ++g)
    if (keep[g]) out.push_back(std::move(gpus[g]));
  gpus = std::move(out);
}

double Waste(const MigServingProblem& p, const std::vector<GpuConfig>& gpus) {
  const std::vector<double> served = Served(p, gpus);
  double w = 0;
  for (size_t m = 0; m < served.size(); ++m)
    w += std::max(0.0, served[m] - p.services[m].demand_rps) / p.services[m].demand_rps;
  return w;
}

Status CheckServable(const MigServingProblem& p) {
  for (size_t m = 0; m < p.services.size(); ++m) {
    bool any = p.allow_whole_gpu && p.whole_gpu_throughput[m] > 0;
    for (const hw::MigPartition& part : p.partitions)
      for (const hw::MigInstance& in : part.instances()) any = any || p.throughput[m][in.profile] > 0;
    if (!any)
      return Error::Infeasible("service '" + p.services[m].name + "' (" + p.services[m].model +
                               "): no instance of " + p.gpu.name + " meets its p99 SLO of " +
                               FormatNumber(p.services[m].slo_p99.ToMillis(), 4) + " ms at any batch");
  }
  return Status::Ok();
}

MigDeployment MakeDeployment(const MigServingProblem& p, std::vector<GpuConfig> gpus, int64_t evaluations) {
  MigDeployment d;
  d.served_rps = Served(p, gpus);
  d.gpus = std::move(gpus);
  d.evaluations = evaluations;
  return d;
}

}  // namespace dlsim::serve::internal
