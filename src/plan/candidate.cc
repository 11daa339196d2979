#include "dlsim/plan/candidate.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>

#include "dlsim/train/layout_check.h"
#include "dlsim/train/step_model.h"

namespace dlsim::plan {
namespace {

using train::PipelineScheduleKind;
using train::Recompute;

template <typename T>
std::vector<T> OrDefault(const std::vector<T>& values, T def) {
  return values.empty() ? std::vector<T>{def} : values;
}

// The resolved lists of one search (empty lists replaced by the scenario's value).
struct Lists {
  std::vector<int> tp, pp, cp, micro_batch, virtual_stages, zero;
  std::vector<Recompute> recompute;
  std::vector<PipelineScheduleKind> schedule;
  std::vector<bool> sp;
  std::vector<int> ep;
  int min_zero = 0;

  Lists(const SearchSpace& s, const train::TrainOptions& b)
      : tp(OrDefault(s.tp, b.parallel.tp)),
        pp(OrDefault(s.pp, b.parallel.pp)),
        cp(OrDefault(s.cp, b.parallel.cp)),
        micro_batch(OrDefault(s.micro_batch, b.training.micro_batch)),
        virtual_stages(OrDefault(s.virtual_stages, b.parallel.virtual_stages)),
        zero(OrDefault(s.zero, b.parallel.zero)),
        recompute(OrDefault(s.recompute, b.parallel.recompute)),
        schedule(OrDefault(s.pipeline_schedule, b.parallel.pipeline_schedule)),
        sp(OrDefault(s.sequence_parallel, b.parallel.sequence_parallel)),
        ep(OrDefault(s.ep, b.parallel.ep)) {
    min_zero = *std::min_element(zero.begin(), zero.end());
  }
  uint64_t Inner() const {
    return uint64_t{schedule.size()} * virtual_stages.size() * micro_batch.size() * zero.size() * sp.size() *
           recompute.size() * ep.size();
  }
};

bool WholeNodes(int gpus, int per_node) { return gpus <= per_node || gpus % per_node == 0; }

bool GpuCountAllowed(int gpus, const Constraints& c, int base_gpus) {
  if (!c.gpus.empty()) return std::find(c.gpus.begin(), c.gpus.end(), gpus) != c.gpus.end();
  if (c.gpus_min > 0) return gpus >= c.gpus_min && gpus <= c.gpus_max;
  return gpus == base_gpus;
}

// (gpus, dp) pairs for one tp*pp*cp product; `rejected` counts listed GPU counts it cannot form.
std::vector<std::pair<int, int>> GpuChoices(int64_t mp, const train::TrainOptions& base, const PlanOptions& p,
                                            uint64_t* rejected) {
  const Constraints& c = p.constraints;
  std::vector<std::pair<int, int>> out;
  if (!p.space.dp.empty()) {
    for (int dp : p.space.dp) out.push_back({static_cast<int>(mp * dp), dp});
    return out;
  }
  if (c.gpus_min > 0 && c.gpus.empty()) {
    for (int64_t dp = (c.gpus_min + mp - 1) / mp; dp * mp <= c.gpus_max; ++dp)
      out.push_back({static_cast<int>(dp * mp), static_cast<int>(dp)});
    return out;
  }
  for (int g : OrDefault(c.gpus, base.hardware.gpus)) {
    if (g % mp == 0) {
      out.push_back({g, static_cast<int>(g / mp)});
    } else {
      ++*rejected;
    }
  }
  return out;
}

// Global batch of a candidate; 0 when it cannot be formed.
int GlobalBatch(const train::TrainOptions& base, const Constraints& c, int micro_batch, int dp) {
  if (!c.tokens_per_step) return base.training.global_batch;
  const int64_t per_step = int64_t{micro_batch} * dp;
  const int64_t sequences = *c.tokens_per_step / base.training.seq_len;
  return static_cast<int>(sequences / per_step * per_step);
}

// The pruning reason of a layout rule (train/layout_check.h).
const char* PruneReason(train::LayoutRule rule) {
  switch (rule) {
    case train::LayoutRule::kGpus:
      return kPrunedGpuCount;
    case train::LayoutRule::kHeads:
      return kPrunedHeads;
    case train::LayoutRule::kSequence:
      return kPrunedSequence;
    case train::LayoutRule::kBatch:
      return kPrunedBatch;
    case train::LayoutRule::kStages:
      return kPrunedStages;
    case train::LayoutRule::kExperts:
      return kPrunedExperts;
    case train::LayoutRule::kContext:
      return kPrunedHeads;  // the context layout cannot split the heads
  }
  return kPrunedStages;
}

// The pruning reason of the first layout rule `c` breaks, or nullptr. virtual_stages only
// matters for the interleaved schedule.
const char* LayoutFailure(const train::TrainOptions& base, Candidate c) {
  if (c.schedule != PipelineScheduleKind::kInterleaved) c.virtual_stages = 1;
  const std::vector<train::LayoutIssue> issues = train::CheckLayout(ApplyCandidate(base, c));
  return issues.empty() ? nullptr : PruneReason(issues.front().rule);
}

// Folds keys the simulator ignores for this layout onto one value.
Candidate Canonical(Candidate c, int min_zero) {
  c.sequence_parallel = c.sequence_parallel && c.tp > 1;
  if (c.dp == 1) c.zero = min_zero;
  if (c.schedule != PipelineScheduleKind::kInterleaved) c.virtual_stages = 1;
  return c;
}

auto Key(const Candidate& c) {
  return std::make_tuple(c.gpus, c.global_batch, c.micro_batch, c.tp, c.pp, c.cp, c.dp, c.virtual_stages,
                         c.zero, static_cast<int>(c.recompute), static_cast<int>(c.schedule),
                         c.sequence_parallel, c.ep);
}

// One enumeration in progress: its inputs, the candidates and pruning counts so far, the keys already kept.
struct Search {
  const train::TrainOptions& base;
  const PlanOptions& options;
  const Lists& lists;
  const MemoryLimits& limits;
  Bytes usable;
  Enumeration e;
  std::set<decltype(Key(Candidate{}))> seen;
};

// Keeps `c` (canonical) as a candidate unless a layout rule, an equivalent kept candidate or the memory lower
// bound prunes it.
void Consider(Candidate c, Search& s) {
  if (const char* why = LayoutFailure(s.base, c)) {
    s.e.AddPruned(why, 1);
    return;
  }
  c = Canonical(c, s.lists.min_zero);
  if (!s.seen.insert(Key(c)).second) {
    s.e.AddPruned(kPrunedEquivalent, 1);
    return;
  }
  const train::TrainOptions o = ApplyCandidate(s.base, c);
  const train::ParallelPlan plan = train::MakeParallelPlan(o).value();  // rules checked
  if (StaticMemoryLowerBound(o, plan, s.limits.framework_overhead) > s.usable) {
    s.e.AddPruned(kPrunedMemory, 1);
    return;
  }
  s.e.candidates.push_back(c);
}

// Considers every schedule, virtual-stage, micro-batch, ZeRO, sequence-parallel and recompute choice of one
// (gpus, tp, pp, cp, dp) layout.
void ConsiderInnerChoices(int gpus, int tp, int pp, int cp, int dp, Search& s) {
  const Lists& l = s.lists;
  const Constraints& cons = s.options.constraints;
  for (auto schedule : l.schedule)
    for (int vs : l.virtual_stages)
      for (int mb : l.micro_batch)
        for (int zero : l.zero)
          for (bool sp : l.sp)
            for (auto rc : l.recompute)
              for (int ep : l.ep)
                Consider({gpus, GlobalBatch(s.base, cons, mb, dp), mb, tp, pp, cp, dp, vs, zero, rc, schedule,
                          sp, ep},
                         s);
}

// Counts the combinations of one tp*pp*cp product and enumerates those of its GPU counts that are allowed.
void EnumerateGpuChoices(int tp, int pp, int cp, Search& s) {
  const Lists& l = s.lists;
  const train::TrainOptions& base = s.base;
  uint64_t rejected = 0;
  const auto choices = GpuChoices(int64_t{tp} * pp * cp, base, s.options, &rejected);
  s.e.space_size += (choices.size() + rejected) * l.Inner();
  s.e.AddPruned(kPrunedGpuCount, rejected * l.Inner());
  for (const auto& [gpus, dp] : choices) {
    if (!GpuCountAllowed(gpus, s.options.constraints, base.hardware.gpus) ||
        !WholeNodes(gpus, base.hardware.gpus_per_node)) {
      s.e.AddPruned(kPrunedGpuCount, l.Inner());
      continue;
    }
    ConsiderInnerChoices(gpus, tp, pp, cp, dp, s);
  }
}

}  // namespace

Candidate CandidateOf(const train::TrainOptions& o) {
  Candidate c;
  c.gpus = o.hardware.gpus;
  c.global_batch = o.training.global_batch;
  c.micro_batch = o.training.micro_batch;
  c.tp = o.parallel.tp;
  c.pp = o.parallel.pp;
  c.cp = o.parallel.cp;
  c.dp = o.parallel.dp > 0 ? o.parallel.dp : o.hardware.gpus / std::max(1, c.tp * c.pp * c.cp);
  c.virtual_stages = o.parallel.virtual_stages;
  c.zero = o.parallel.zero;
  c.recompute = o.parallel.recompute;
  c.schedule = o.parallel.pipeline_schedule;
  c.sequence_parallel = o.parallel.sequence_parallel;
  c.ep = o.parallel.ep;
  return c;
}

train::TrainOptions ApplyCandidate(const train::TrainOptions& base, const Candidate& c) {
  train::TrainOptions o = base;
  o.hardware.gpus = c.gpus;
  o.training.global_batch = c.global_batch;
  o.training.micro_batch = c.micro_batch;
  train::ParallelOptions& p = o.parallel;
  const auto chunks = [](PipelineScheduleKind k, int v) {
    return k == PipelineScheduleKind::kInterleaved ? v : 1;
  };
  const bool same_stages =
      c.pp == base.parallel.pp && chunks(c.schedule, c.virtual_stages) ==
                                      chunks(base.parallel.pipeline_schedule, base.parallel.virtual_stages);
  if (!same_stages) p.layers_per_stage.clear();
  p.tp = c.tp;
  p.pp = c.pp;
  p.cp = c.cp;
  p.dp = c.dp;
  p.virtual_stages = c.virtual_stages;
  p.zero = c.zero;
  // FSDP's keep-gathered and deferred-reduction behaviours exist only where their state is sharded (an
  // explicit yes would make the written scenario an error; the pipelined form resolves by itself).
  if (p.zero < 3 && p.keep_gathered == train::Pipelined::kYes) p.keep_gathered = train::Pipelined::kNo;
  if (p.zero < 2 && p.defer_grad_reduce == train::Pipelined::kYes)
    p.defer_grad_reduce = train::Pipelined::kNo;
  p.recompute = c.recompute;
  p.pipeline_schedule = c.schedule;
  p.sequence_parallel = c.sequence_parallel;
  p.ep = c.ep;
  return o;
}

std::vector<std::pair<std::string, std::string>> CandidateFields(const Candidate& c) {
  const auto s = [](int v) { return std::to_string(v); };
  return {{"gpus", s(c.gpus)},
          {"global_batch", s(c.global_batch)},
          {"micro_batch", s(c.micro_batch)},
          {"tp", s(c.tp)},
          {"pp", s(c.pp)},
          {"cp", s(c.cp)},
          {"dp", s(c.dp)},
          {"pipeline_schedule", std::string(train::PipelineScheduleName(c.schedule))},
          {"virtual_stages", s(c.virtual_stages)},
          {"zero", s(c.zero)},
          {"recompute", std::string(train::RecomputeName(c.recompute))},
          {"sequence_parallel", c.sequence_parallel ? "true" : "false"},
          {"ep", s(c.ep)}};
}

std::string DescribeCandidate(const Candidate& c, bool with_gpus) {
  std::string out = with_gpus ? std::to_string(c.gpus) + " gpus " : "";
  out += "tp " + std::to_string(c.tp) + " pp " + std::to_string(c.pp) + " cp " + std::to_string(c.cp) +
         " dp " + std::to_string(c.dp) + " mb " + std::to_string(c.micro_batch) + " " +
         std::string(train::PipelineScheduleName(c.schedule));
  if (c.schedule == PipelineScheduleKind::kInterleaved) out += " x" + std::to_string(c.virtual_stages);
  out += " zero " + std::to_string(c.zero) + " recompute " + std::string(train::RecomputeName(c.recompute));
  if (c.sequence_parallel) out += " sp";
  if (c.ep > 1) out += " ep " + std::to_string(c.ep);
  return out;
}

std::string DiffCandidates(const Candidate& ref, const Candidate& c) {
  const auto a = CandidateFields(ref), b = CandidateFields(c);
  std::string out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].second == b[i].second) continue;
    if (!out.empty()) out += ", ";
    out += a[i].first + " " + a[i].second + "->" + b[i].second;
  }
  return out;
}

Bytes StaticMemoryLowerBound(const train::TrainOptions& o, const train::ParallelPlan& plan, Bytes overhead) {
  const model::ModelSpec& m = o.model;
  double layer = m.LayerParameters() / plan.tp;
  if (m.moe.enabled()) {
    const double routed = m.moe.experts * m.ExpertParameters();
    const double moe_layer =
        (m.MoeLayerParameters() - routed) / plan.tp + routed / (double(plan.ep) * plan.etp);
    layer = std::min(layer, moe_layer);
  }
  const double embedding = static_cast<double>(m.vocab) * m.hidden / plan.tp;
  // Bytes per parameter of the simulator's memory model (train::StateBytes, src/train/step_model.cc); a test
  // (MemoryLowerBoundNeverExceedsSimulatedPeak) checks that the bound stays below the simulated memory, so a
  // change there cannot go unnoticed.
  const train::StateBytesPerParam state = train::StateBytes(o.training);
  const int zero = o.parallel.zero, dp = plan.WeightGroup();
  const double per_param = state.weights / (zero >= 3 ? dp : 1) + state.gradients / (zero >= 2 ? dp : 1) +
                           state.optimizer / (zero >= 1 ? dp : 1);
  // The embedding and head keep no FP8 copy of their weights.
  const double per_end_param = per_param - (state.weights - state.end_weights) / (zero >= 3 ? dp : 1);
  double worst = 0;
  for (int rank = 0; rank < plan.pp; ++rank) {
    double params = 0, ends = 0;
    for (int chunk = 0; chunk < plan.chunks; ++chunk) {
      params += plan.LayersOf(rank, chunk) * layer;
      if (plan.IsFirst(rank, chunk)) ends += embedding;
      if (plan.IsLast(rank, chunk) && !(m.tied_embeddings && plan.IsFirst(rank, chunk))) ends += embedding;
    }
    worst = std::max(worst, params * per_param + ends * per_end_param);
  }
  return Bytes(worst) + overhead;
}

uint64_t Enumeration::PrunedTotal() const {
  uint64_t n = 0;
  for (const auto& [reason, count] : pruned) n += count;
  return n;
}

void Enumeration::AddPruned(const std::string& reason, uint64_t n) {
  for (auto& [r, count] : pruned) {
    if (r == reason) {
      count += n;
      return;
    }
  }
  pruned.push_back({reason, n});
}

Enumeration EnumerateCandidates(const train::TrainOptions& base, const PlanOptions& options,
                                const MemoryLimits& limits) {
  const Lists l(options.space, base);
  Search s{base, options, l, limits, limits.Usable(), {}, {}};
  for (const char* r : {kPrunedGpuCount, kPrunedHeads, kPrunedBatch, kPrunedSequence, kPrunedStages,
                        kPrunedEquivalent, kPrunedMemory, kPrunedDominated})
    s.e.pruned.push_back({r, 0});
  for (int tp : l.tp)
    for (int pp : l.pp)
      for (int cp : l.cp) EnumerateGpuChoices(tp, pp, cp, s);
  return std::move(s.e);
}

}  // namespace dlsim::plan
