#include "dlsim/train/mm_pipeline.h"

#include <algorithm>
#include <numeric>

#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/step_sim.h"

namespace dlsim::train {

std::string MmPartition::ToString() const {
  std::string s = "v" + std::to_string(chunks) + ":";
  const int pp = chunks > 0 ? static_cast<int>(units.size()) / chunks : 0;
  for (size_t j = 0; j < units.size(); ++j) {
    if (j > 0)
      s += (pp > 0 && j % pp == 0) ? " / " : "|";
    else
      s += " ";
    s += std::to_string(units[j]);
  }
  return s;
}

MmPartition EvenPartition(int units, int pp, int chunks) {
  MmPartition p;
  p.chunks = chunks;
  p.units = BalancedLayerPlacement(units, pp * chunks);
  return p;
}

bool IsValidPartition(const MmPartition& p, int units, int pp) {
  if (p.chunks < 1 || pp < 1 || static_cast<int>(p.units.size()) != pp * p.chunks) return false;
  int sum = 0;
  for (int u : p.units) {
    if (u < 1) return false;
    sum += u;
  }
  return sum == units;
}

double MmEmulatorStats::HitRate() const {
  const int64_t lookups = step_lookups + stage_lookups + price_lookups;
  return lookups > 0 ? static_cast<double>(step_hits + stage_hits + price_hits) / static_cast<double>(lookups)
                     : 0;
}

MmEmulator::MmEmulator(const MultimodalCostModel& cost, int pp, bool reuse)
    : cost_(cost), pp_(pp), reuse_(reuse) {
  RegisterPipelineSchedules(schedules_);
}

MmEmulator::Content MmEmulator::ContentOf(const std::vector<model::MultimodalSample>& mb) const {
  Content c;
  const int64_t per_image = cost_.spec().LlmTokensPerImage();
  for (const model::MultimodalSample& s : mb) {
    c.images += s.images;
    c.lengths.push_back(s.text_tokens + s.images * per_image);
  }
  std::sort(c.lengths.begin(), c.lengths.end());
  return c;
}

MmUnitCosts MmEmulator::UnitCosts(const std::vector<model::MultimodalSample>& mb, int* content_id) {
  *content_id = -1;
  if (!reuse_) return cost_.Price(mb);
  ++stats_.price_lookups;
  Content content = ContentOf(mb);
  auto it = content_ids_.find(content);
  if (it != content_ids_.end()) {
    ++stats_.price_hits;
    *content_id = it->second;
    return priced_[it->second];
  }
  *content_id = static_cast<int>(priced_.size());
  priced_.push_back(cost_.Price(mb));
  content_ids_.emplace(std::move(content), *content_id);
  return priced_.back();
}

MmEmulator::StageTask MmEmulator::Stage(int first, int count, const MmUnitCosts& c, int content_id) {
  StageTask t;
  if (!reuse_) {
    cost_.StageCost(c, first, count, t.fwd, t.bwd);
    return t;
  }
  ++stats_.stage_lookups;
  const auto key = std::make_pair(cost_.StageKinds(first, count), content_id);
  auto it = stages_.find(key);
  if (it != stages_.end()) {
    ++stats_.stage_hits;
    return it->second;
  }
  cost_.StageCost(c, first, count, t.fwd, t.bwd);
  stages_.emplace(key, t);
  return t;
}

Result<PipeOrder> MmEmulator::OrderFor(int chunks, int micro_batches) {
  const auto key = std::make_pair(chunks, micro_batches);
  if (auto it = orders_.find(key); it != orders_.end()) return it->second;
  DLSIM_ASSIGN_OR_RETURN(auto schedule, schedules_.Create(chunks > 1 ? "interleaved" : "1f1b"));
  DLSIM_ASSIGN_OR_RETURN(PipeOrder order, schedule->Order({pp_, chunks, micro_batches}));
  orders_.emplace(key, order);
  return order;
}

MmStep MmEmulator::Emulate(const MmPartition& p, const MmBatch& batch) {
  ++stats_.emulations;
  MmStep out;
  const int m = static_cast<int>(batch.micro_batches.size());
  if (!IsValidPartition(p, cost_.units(), pp_) || m < 1) {
    out.feasible = false;
    out.reason = "partition " + p.ToString() + " does not cover the " + std::to_string(cost_.units()) +
                 " units on " + std::to_string(pp_) + " ranks, or the batch is empty";
    return out;
  }
  Result<PipeOrder> order = OrderFor(p.chunks, m);
  if (!order.ok()) {
    out.feasible = false;
    out.reason = order.error().message;
    return out;
  }
  std::vector<MmUnitCosts> costs(m);
  std::vector<int> ids(m);
  for (int i = 0; i < m; ++i) costs[i] = UnitCosts(batch.micro_batches[i], &ids[i]);
  const auto step_key = std::make_pair(p, ids);
  if (reuse_) {
    ++stats_.step_lookups;
    if (auto it = steps_.find(step_key); it != steps_.end()) {
      ++stats_.step_hits;
      return it->second;
    }
  }
  out = Simulate(p, *order, costs, ids);
  if (reuse_) steps_.emplace(step_key, out);
  return out;
}

MmStep MmEmulator::Simulate(const MmPartition& p, const PipeOrder& order,
                            const std::vector<MmUnitCosts>& costs, const std::vector<int>& ids) {
  const int stages = static_cast<int>(p.units.size()), m = static_cast<int>(costs.size());
  std::vector<std::vector<StageTask>> tasks(stages, std::vector<StageTask>(m));
  std::vector<std::vector<Duration>> p2p(stages, std::vector<Duration>(m));
  int first = 0;
  for (int j = 0; j < stages; ++j) {
    for (int i = 0; i < m; ++i) {
      tasks[j][i] = Stage(first, p.units[j], costs[i], ids[i]);
      p2p[j][i] = cost_.P2p(costs[i], first + p.units[j] - 1);
    }
    first += p.units[j];
  }
  StepProgram prog;
  prog.shape = {pp_, p.chunks, m};
  prog.orders = {order};
  prog.task_cost = [&](int, int r, const PipeTask& t) {
    const StageTask& s = tasks[VirtualStage(r, t.chunk, pp_)][t.micro_batch];
    return t.forward ? s.fwd : s.bwd;
  };
  prog.p2p_time = [&](int, int from_vs, int mb, bool forward) {
    return p2p[forward ? from_vs : from_vs - 1][mb];
  };
  ++stats_.simulations;
  const StepTimeline tl = SimulateStep(prog, nullptr);
  MmStep out;
  out.step = tl.step_time;
  Duration busy = Duration::Zero();
  for (const RankTimeline& r : tl.ranks) {
    const Duration b = r.compute + r.tp_comm + r.cp_comm + r.ep_comm;
    out.rank_busy.push_back(b);
    busy += b;
  }
  const double capacity = out.step.ToSeconds() * pp_;
  out.bubble = capacity > 0 ? 1.0 - busy.ToSeconds() / capacity : 0;
  return out;
}

std::vector<Duration> MmEmulator::StageLoads(const MmPartition& p, const MmBatch& batch) {
  std::vector<Duration> load(p.units.size(), Duration::Zero());
  for (const auto& mb : batch.micro_batches) {
    int id = -1;
    const MmUnitCosts c = UnitCosts(mb, &id);
    int first = 0;
    for (size_t j = 0; j < p.units.size(); ++j) {
      const StageTask t = Stage(first, p.units[j], c, id);
      load[j] += t.fwd.Total() + t.bwd.Total();
      first += p.units[j];
    }
  }
  return load;
}

std::vector<Duration> MmEmulator::UnitLoads(const MmBatch& batch) {
  std::vector<Duration> load(cost_.units(), Duration::Zero());
  for (const auto& mb : batch.micro_batches) {
    int id = -1;
    const MmUnitCosts c = UnitCosts(mb, &id);
    for (int u = 0; u < cost_.units(); ++u) {
      const StageTask t = Stage(u, 1, c, id);
      load[u] += t.fwd.Total() + t.bwd.Total();
    }
  }
  return load;
}

}  // namespace dlsim::train
