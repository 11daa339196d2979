// The GoldMiner policy; see the header.
#include "dlsim/cluster/policies/goldminer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim::cluster {
namespace {

// Remote cores that bring demand d to its GPU rate (or to its NIC cap).
double CoresToSaturate(const DataWorkerDemand& d) {
  if (!(d.core_s > 0) || !(d.gpu_rate > 0)) return 0;
  const double missing = std::min(d.gpu_rate - d.local_cores / d.core_s, d.remote_cap);
  return missing > 0 ? missing * d.core_s : 0;
}

// Busy GPUs gained per remote core while the demand is below saturation.
double Slope(const DataWorkerDemand& d) { return d.gpus / (d.core_s * d.gpu_rate); }

class GoldMiner final : public SchedulingPolicy, public DataWorkerPlanner {
 public:
  explicit GoldMiner(const PolicyParams& p) : GoldMiner(p, GoldMinerParams::From(p.own)) {}
  GoldMiner(const PolicyParams& p, const GoldMinerParams& own)
      : backfill_(p.backfill), worker_cores_(own.worker_cores), equal_(own.equal_split) {}
  bool Preemptive() const override { return false; }
  bool StaticKeys() const override { return true; }
  bool Backfill() const override { return backfill_; }
  Priority Key(const JobSpec& job, const JobProgress&, TimePoint) const override {
    return {job.arrival.ToSeconds(), 0};
  }
  const DataWorkerPlanner* data_workers() const override { return this; }
  std::vector<double> PlanDataWorkers(const std::vector<DataWorkerDemand>& demands,
                                      double idle_cores) const override {
    return equal_ ? EqualDataWorkers(demands, idle_cores)
                  : GreedyDataWorkers(demands, idle_cores, worker_cores_);
  }

 private:
  bool backfill_;
  double worker_cores_;
  bool equal_;
};

}  // namespace

std::vector<double> GreedyDataWorkers(const std::vector<DataWorkerDemand>& demands, double idle_cores,
                                      double worker_cores) {
  std::vector<double> out(demands.size(), 0.0);
  if (!(worker_cores > 0) || !(idle_cores >= worker_cores)) return out;
  // Each demand's workers come in two blocks of equal gain: the whole workers below its need
  // (gain slope x w each) and one partial worker (slope x the rest).
  struct Block {
    double gain;
    size_t demand;
    int64_t workers;
  };
  std::vector<Block> blocks;
  for (size_t i = 0; i < demands.size(); ++i) {
    const double need = CoresToSaturate(demands[i]);
    if (!(need > 0)) continue;
    const double full = std::floor(need / worker_cores);
    const double rest = need - full * worker_cores;
    const double slope = Slope(demands[i]);
    if (full > 0) blocks.push_back({slope * worker_cores, i, static_cast<int64_t>(full)});
    if (rest > 1e-12 * worker_cores) blocks.push_back({slope * rest, i, 1});
  }
  std::stable_sort(blocks.begin(), blocks.end(), [](const Block& a, const Block& b) {
    return a.gain != b.gain ? a.gain > b.gain : a.demand < b.demand;
  });
  int64_t left = static_cast<int64_t>(std::floor(idle_cores / worker_cores));
  for (const Block& b : blocks) {
    const int64_t take = std::min(left, b.workers);
    out[b.demand] += static_cast<double>(take) * worker_cores;
    left -= take;
    if (left == 0) break;
  }
  return out;
}

std::vector<double> EqualDataWorkers(const std::vector<DataWorkerDemand>& demands, double idle_cores) {
  std::vector<double> out(demands.size(), 0.0);
  std::vector<size_t> order(demands.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<double> need(demands.size());
  for (size_t i = 0; i < demands.size(); ++i) need[i] = CoresToSaturate(demands[i]);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return need[a] < need[b]; });
  double left = std::max(idle_cores, 0.0);
  for (size_t k = 0; k < order.size(); ++k) {
    const double share = left / static_cast<double>(order.size() - k);
    const double give = std::min(share, need[order[k]]);
    out[order[k]] = give;
    left -= give;
  }
  return out;
}

double BusyGpus(const std::vector<DataWorkerDemand>& demands, const std::vector<double>& remote_cores) {
  double sum = 0;
  for (size_t i = 0; i < demands.size(); ++i)
    if (demands[i].gpu_rate > 0)
      sum += demands[i].gpus * DemandRate(demands[i], remote_cores[i]) / demands[i].gpu_rate;
  return sum;
}

std::unique_ptr<SchedulingPolicy> MakeGoldMinerPolicy(const PolicyParams& params) {
  return std::make_unique<GoldMiner>(params);
}

const ParamSpec kWorkerCores =
    NumberKey("goldminer_worker_cores", 1, 0.001, 1e4, "goldminer: cores per data worker");
const ParamSpec kEqualSplit =
    FlagKey("goldminer_equal_split", false, "goldminer: split idle cores equally (the ablation)");

std::vector<ParamSpec> GoldMinerParams::Keys() { return {kWorkerCores, kEqualSplit}; }

GoldMinerParams GoldMinerParams::From(const ParamSet& set) {
  return {.worker_cores = set.Number(kWorkerCores), .equal_split = set.Flag(kEqualSplit)};
}

void RegisterGoldMiner(PolicyRegistry& reg) {
  reg.RegisterBuiltin("goldminer",
                      "GoldMiner (SIGMOD'23): FIFO GPU jobs + data workers on idle CPUs by marginal gain",
                      MakeGoldMinerPolicy, GoldMinerParams::Keys());
}

}  // namespace dlsim::cluster
