#include "dlsim/train/data_steps.h"

#include <algorithm>
#include <cmath>

#include "dlsim/core/rng.h"
#include "dlsim/data/data_policy.h"
#include "dlsim/data/length_source.h"
#include "dlsim/train/chain_order.h"

namespace dlsim::train {
namespace {

// The shape data policies place documents into: the parallel layout, the scenario's data options, causality.
data::DataShape ShapeOf(const TrainOptions& o, const ParallelPlan& plan) {
  const data::DataOptions& d = *o.data;
  data::DataShape shape;
  shape.dp = plan.dp;
  shape.cp = plan.cp;
  shape.micro_batch = plan.micro_batch;
  shape.micro_batches = plan.micro_batches;
  shape.seq_len = plan.seq_len;
  shape.max_len = d.lengths.max_len;
  shape.chunk_size = d.chunk_size;
  shape.token_budget = d.token_budget;
  shape.seed = d.seed;
  shape.pad_to = d.pad_to;
  shape.causal = o.model.arch == model::Arch::kDecoder;
  // Balancers weigh a document as tokens + pairs / pairs_per_token: the attention FLOPs of a
  // pair (4 d per head) against the linear FLOPs of a token (~24 h^2 / h = 24 h for GPT).
  shape.pairs_per_token = 6.0 * o.model.hidden;
  return shape;
}

// Adds one step's token, document and truncation counts to the totals.
void AddStepCounts(const data::StepData& sd, DataStepsResult& out) {
  out.real_tokens += sd.real_tokens;
  out.computed_tokens += sd.computed_tokens;
  out.documents += sd.documents;
  out.truncated += sd.truncated;
}

using CostTable = std::vector<std::vector<std::vector<ChunkCosts>>>;  // [replica][micro-batch][virtual stage]

// Prices every micro-batch of every replica on every virtual stage into `table`, raising the largest
// activations and resident state seen per stage in `out`.
void PriceMicroBatches(const data::StepData& sd, const ChunkCostModel& costs, CostTable& table,
                       DataStepsResult& out) {
  table.resize(sd.dp.size());
  for (size_t x = 0; x < sd.dp.size(); ++x) {
    for (const data::MicroBatch& mb : sd.dp[x]) {
      table[x].push_back(costs.Price(mb));
      for (size_t s = 0; s < table[x].back().size(); ++s) {
        out.stage_activations[s] = std::max(out.stage_activations[s], table[x].back()[s].activations);
        out.stage_state[s] = std::max(out.stage_state[s], table[x].back()[s].resident_state);
      }
    }
  }
}

// The order of one replica's micro-batches: the schedule's, or, when some are chained (chunkflow), the
// chain-aware 1F1B (or GPipe) order that runs each chain's backward passes in reverse.
Result<PipeOrder> OrderReplica(const std::vector<data::MicroBatch>& mbs, const ParallelPlan& plan,
                               const PipelineSchedule& schedule) {
  const int m = static_cast<int>(mbs.size());
  std::vector<int> chain_of;
  for (const data::MicroBatch& mb : mbs) chain_of.push_back(mb.chain);
  if (std::all_of(chain_of.begin(), chain_of.end(), [](int c) { return c < 0; }))
    return schedule.Order({plan.pp, plan.chunks, m});
  return ChainAwareOrder({plan.pp, plan.chunks, m}, ChainBackwardOrder(chain_of), schedule.name() == "gpipe");
}

// Appends one pipeline order per replica of `sd` to `prog`; returns the most micro-batches any replica runs
// (at least 1). Errors: the schedule cannot order a replica's micro-batch count.
Result<int> OrderReplicas(const data::StepData& sd, const ParallelPlan& plan,
                          const PipelineSchedule& schedule, StepProgram& prog) {
  int most = 1;
  for (const auto& mbs : sd.dp) {
    const int m = static_cast<int>(mbs.size());
    most = std::max(most, m);
    if (m == 0) {  // a replica with nothing to do still joins the reductions
      prog.orders.push_back(PipeOrder(plan.pp));
      continue;
    }
    DLSIM_ASSIGN_OR_RETURN(PipeOrder order, OrderReplica(mbs, plan, schedule));
    prog.orders.push_back(std::move(order));
  }
  return most;
}

// Simulates one step of placed micro-batches: their costs on every virtual stage, then one order per replica.
// Updates the largest stage activations and micro-batch count of `out`.
Result<StepTimeline> SimulateStepData(const data::StepData& sd, const ParallelPlan& plan,
                                      const ChunkCostModel& costs, const PipelineSchedule& schedule,
                                      const StepProgram& base, report::Sink* sink, DataStepsResult& out) {
  StepProgram prog = base;
  prog.orders.clear();
  CostTable table;
  PriceMicroBatches(sd, costs, table, out);
  DLSIM_ASSIGN_OR_RETURN(const int most, OrderReplicas(sd, plan, schedule, prog));
  out.max_micro_batches = std::max(out.max_micro_batches, most);
  prog.shape.micro_batches = most;
  const int pp = plan.pp;
  prog.keeps_activations = [&sd](int replica, int micro_batch) {
    return !sd.dp[static_cast<size_t>(replica)][static_cast<size_t>(micro_batch)].recompute;
  };
  prog.task_cost = [&table, pp](int replica, int rank, const PipeTask& t) {
    const ChunkCosts& c = table[replica][t.micro_batch][t.chunk * pp + rank];
    return t.forward ? c.forward : c.backward;
  };
  return SimulateStep(prog, sink);
}

}  // namespace

Result<DataStepsResult> SimulateDataSteps(const TrainOptions& o, const ParallelPlan& plan,
                                          const ChunkCostModel& costs, const PipelineSchedule& schedule,
                                          StepProgram base, report::Sink* sink) {
  const data::DataOptions& d = *o.data;
  DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<data::LengthSource> lengths, data::MakeLengthSource(d.lengths));
  data::DataPolicyRegistry policies("data-policy");
  data::RegisterDataPolicies(policies);
  DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<data::DataPolicy> policy, policies.Create(d.policy));
  const data::DataShape shape = ShapeOf(o, plan);
  const int64_t budget = static_cast<int64_t>(o.training.global_batch) * o.training.seq_len;
  const Rng root = Rng(d.seed).Stream("data/lengths");

  DataStepsResult out;
  out.stage_activations.assign(plan.VirtualStages(), Bytes(0));
  out.stage_state.assign(plan.VirtualStages(), Bytes(0));
  for (int step = 0; step < d.steps; ++step) {
    Rng rng = root.Stream("step " + std::to_string(step));
    const std::vector<int64_t> docs = d.documents > 0 ? data::DrawDocumentCount(*lengths, rng, d.documents, 0)
                                                      : data::DrawDocuments(*lengths, rng, budget, 0);
    DLSIM_ASSIGN_OR_RETURN(data::StepData sd, policy->Schedule(docs, shape));
    const int64_t longest = shape.max_len > 0 ? shape.max_len : shape.seq_len;  // the policies' truncation
    for (int64_t l : docs) out.sum_sq_doc_tokens += std::pow(static_cast<double>(std::min(l, longest)), 2);
    data::ApplyTokenBytes(sd, costs.KvBytesPerToken(), costs.QBytesPerToken());
    AddStepCounts(sd, out);
    DLSIM_ASSIGN_OR_RETURN(StepTimeline timeline, SimulateStepData(sd, plan, costs, schedule, base,
                                                                   step == 0 ? sink : nullptr, out));
    out.steps.push_back(std::move(timeline));
  }
  return out;
}

}  // namespace dlsim::train
