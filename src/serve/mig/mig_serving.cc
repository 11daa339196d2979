// MIG-serving problem: profiling the services on every instance size, and deployment arithmetic.
#include "dlsim/serve/mig/mig_serving.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "dlsim/core/strings.h"

namespace dlsim::serve {
namespace {

constexpr int kMaxGpus = 10'000;

// The paper's 1g..7g: drop a profile when another of the same compute size has fewer memory
// slices (1g.20gb beside 1g.10gb).
std::vector<std::string> DefaultProfiles(const hw::GpuSpec& gpu) {
  std::vector<std::string> out;
  for (const auto& p : gpu.mig) {
    const bool dominated = std::any_of(gpu.mig.begin(), gpu.mig.end(), [&](const hw::MigProfile& q) {
      return q.compute_slices == p.compute_slices && q.memory_slices < p.memory_slices;
    });
    if (!dominated) out.push_back(p.name);
  }
  return out;
}

Status CheckService(const MigService& s, std::set<std::string>& names) {
  const std::string where = "service '" + s.name + "': ";
  if (s.name.empty()) return Error::InvalidArgument("a MIG-serving service needs a name");
  if (!names.insert(s.name).second) return Error::InvalidArgument(where + "the name is given twice");
  if (!(s.demand_rps > 0) || s.demand_rps > 1e9)
    return Error::InvalidArgument(where + "demand_rps: expected a number in (0, 1e9], found " +
                                  FormatNumber(s.demand_rps, 6));
  if (s.slo_p99 <= Duration::Zero() || s.slo_p99 > Seconds(1e6))
    return Error::InvalidArgument(where + "slo_p99: expected a duration in (0, 1e6] s, found " +
                                  FormatNumber(s.slo_p99.ToSeconds(), 6) + " s");
  return Status::Ok();
}

// Best throughput under the service's SLO on one device; 0 when it cannot meet it there.
ServiceCapacity ProfileOn(const DnnModel& m, const hw::GpuSpec& device, const cost::ComputeCalibration& cal,
                          const MigService& s, const MigProblemOptions& o, const DnnProfileTable* table) {
  auto cm = cost::MakeRooflineComputeModel(device, cal);
  return ProfileDnnService(m, device, *cm, s.slo_p99, o.serve, table);
}

}  // namespace

Result<MigServingProblem> MakeMigServingProblem(const hw::GpuSpec& gpu, std::vector<MigService> services,
                                                const DnnModelRegistry& models,
                                                const cost::ComputeCalibration& calibration,
                                                const MigProblemOptions& options,
                                                const DnnProfileTable* table) {
  if (services.empty()) return Error::InvalidArgument("MIG serving needs at least one service");
  std::set<std::string> names;
  for (const MigService& s : services) DLSIM_RETURN_IF_ERROR(CheckService(s, names));
  MigServingProblem p;
  p.gpu = gpu;
  hw::MigEnumerateOptions e{options.profiles.empty() ? DefaultProfiles(gpu) : options.profiles,
                            options.maximal_only};
  DLSIM_ASSIGN_OR_RETURN(p.partitions, hw::EnumerateMigPartitions(gpu, e));
  for (const MigService& s : services) {
    DLSIM_ASSIGN_OR_RETURN(auto m, models.Create(s.model));
    std::vector<double> tput;
    std::vector<int> batch;
    for (const hw::MigProfile& prof : gpu.mig) {
      const ServiceCapacity c = ProfileOn(*m, hw::MigInstanceSpec(gpu, prof), calibration, s, options, table);
      tput.push_back(c.feasible ? c.best.throughput_rps : 0.0);
      batch.push_back(c.feasible ? c.best.batch : 0);
    }
    const ServiceCapacity whole = ProfileOn(*m, gpu, calibration, s, options, table);
    p.whole_gpu_throughput.push_back(whole.feasible ? whole.best.throughput_rps : 0.0);
    p.throughput.push_back(std::move(tput));
    p.batch.push_back(std::move(batch));
  }
  p.services = std::move(services);
  p.allow_whole_gpu = options.allow_whole_gpu;
  if (const double lb = MigLowerBoundGpus(p); std::isfinite(lb) && lb > kMaxGpus)
    return Error::InvalidArgument("the demands need at least " + FormatNumber(lb, 6) +
                                  " GPUs; MIG serving plans at most " + std::to_string(kMaxGpus) +
                                  ": lower the demands or plan a share of them");
  return p;
}

std::vector<double> Contribution(const MigServingProblem& p, const GpuConfig& c) {
  std::vector<double> out(p.services.size(), 0.0);
  if (c.partition < 0) {
    if (!c.service.empty() && c.service[0] >= 0) out[c.service[0]] += p.whole_gpu_throughput[c.service[0]];
    return out;
  }
  const auto& inst = p.partitions[c.partition].instances();
  for (size_t i = 0; i < inst.size() && i < c.service.size(); ++i) {
    if (c.service[i] >= 0) out[c.service[i]] += p.throughput[c.service[i]][inst[i].profile];
  }
  return out;
}

std::vector<double> Served(const MigServingProblem& p, const std::vector<GpuConfig>& gpus) {
  std::vector<double> served(p.services.size(), 0.0);
  for (const GpuConfig& g : gpus) {
    const std::vector<double> c = Contribution(p, g);
    for (size_t m = 0; m < served.size(); ++m) served[m] += c[m];
  }
  return served;
}

bool MeetsDemand(const MigServingProblem& p, const std::vector<double>& served) {
  for (size_t m = 0; m < p.services.size(); ++m) {
    if (served[m] < p.services[m].demand_rps * (1.0 - 1e-9)) return false;
  }
  return true;
}

double MigLowerBoundGpus(const MigServingProblem& p) {
  std::set<int> used;
  for (const hw::MigPartition& part : p.partitions)
    for (const hw::MigInstance& in : part.instances()) used.insert(in.profile);
  double gpus = 0;
  for (size_t m = 0; m < p.services.size(); ++m) {
    double per_gpu = p.allow_whole_gpu ? p.whole_gpu_throughput[m] : 0.0;
    for (int k : used)
      per_gpu = std::max(per_gpu, p.throughput[m][k] * hw::kMigComputeSlices / p.gpu.mig[k].compute_slices);
    if (per_gpu <= 0) return INFINITY;
    gpus += p.services[m].demand_rps / per_gpu;
  }
  return gpus;
}

std::string ConfigString(const MigServingProblem& p, const GpuConfig& c) {
  auto svc = [&](int s) { return s >= 0 ? p.services[s].name : std::string("idle"); };
  if (c.partition < 0) return "whole:" + svc(c.service.empty() ? -1 : c.service[0]);
  std::string out;
  const auto& inst = p.partitions[c.partition].instances();
  for (size_t i = 0; i < inst.size(); ++i)
    out += (i ? " " : "") + p.gpu.mig[inst[i].profile].name + ":" +
           svc(i < c.service.size() ? c.service[i] : -1);
  return out;
}

}  // namespace dlsim::serve
