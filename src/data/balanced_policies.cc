// wlb (WLB-LLM) and skrull (Skrull): global-batch rescheduling of documents into micro-batches
// on every DP rank, balancing the workload estimate tokens + pairs / pairs_per_token.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "bin_greedy.h"
#include "layout.h"
#include "policies.h"

namespace dlsim::data::internal {
namespace {

// Bin b is micro-batch b / dp of DP rank b % dp (so consecutive bins spread over ranks).
MicroBatch& BinAt(StepData& step, const DataShape& s, int b) {
  return step.dp[static_cast<size_t>(b % s.dp)][static_cast<size_t>(b / s.dp)];
}

void AllocateBins(StepData& step, const DataShape& s, int per_rank) {
  for (auto& rank : step.dp) rank.assign(static_cast<size_t>(per_rank), NewMicroBatch(s.cp));
}

}  // namespace

int64_t MicroBatchCapacity(const DataShape& s) {
  return s.token_budget > 0 ? s.token_budget * s.cp : s.seq_len * s.micro_batch;
}

StepData PackBalanced(const Prepared& p, const DataShape& s, PackWeight weight) {
  const int64_t cap = MicroBatchCapacity(s);
  std::vector<int> order = LongestFirst(p.docs);
  for (int m = InitialMicroBatches(p, s, cap);; ++m) {
    int bins = m * s.dp;
    std::vector<int64_t> tokens(static_cast<size_t>(bins), 0);
    std::vector<std::vector<int>> members(static_cast<size_t>(bins));
    bool ok = GreedyAssign(s.dp, m, order, [&](int b, int i) -> std::optional<double> {
      int64_t l = p.docs[static_cast<size_t>(i)];
      // A document longer than the capacity still gets a micro-batch of its own.
      if (tokens[b] > 0 && tokens[b] + l > cap) return std::nullopt;
      tokens[b] += l;
      members[b].push_back(i);
      return weight == PackWeight::kTokens ? static_cast<double>(l) : DocumentWork(l, s);
    });
    if (!ok) continue;
    StepData step = NewStep(p, s);
    AllocateBins(step, s, m);
    for (int b = 0; b < bins; ++b) {
      std::sort(members[b].begin(), members[b].end());
      for (int i : members[b]) {
        Row row{{WholeDocument(p.docs[static_cast<size_t>(i)])}, 0, p.docs[static_cast<size_t>(i)]};
        PlaceRow(row, s.causal, BinAt(step, s, b));  // per-document CP sharding
      }
    }
    return step;
  }
}

Result<StepData> ScheduleWlb(const Docs& docs, const DataShape& s) {
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(docs, s));
  StepData step = PackBalanced(p, s, PackWeight::kWorkload);
  FinishStep(step);
  return step;
}

namespace {

// One micro-batch of a CP group under Skrull's DACP: per-rank tokens and workloads, the
// documents kept whole on each rank and those sharded over all ranks.
struct SkrullBin {
  std::vector<int64_t> tokens;
  std::vector<double> work;
  std::vector<std::pair<int, int>> local;  // (document, rank)
  std::vector<int> sharded;
};

// Places document i (length l) into `bin` if the budget allows: whole on the least-loaded rank
// that has room, else sharded over all ranks. Returns the workload added.
std::optional<double> SkrullPlace(SkrullBin& bin, int i, int64_t l, int64_t budget, const DataShape& s) {
  int best = -1;
  for (int r = 0; r < s.cp; ++r) {
    if (bin.tokens[r] + l <= budget && (best < 0 || bin.work[r] < bin.work[best])) best = r;
  }
  double w = DocumentWork(l, s);
  if (best >= 0) {
    bin.tokens[best] += l;
    bin.work[best] += w;
    bin.local.push_back({i, best});
    return w;
  }
  for (int r = 0; r < s.cp; ++r) {
    if (bin.tokens[r] + ZigzagShare(l, s.cp, r) > budget) return std::nullopt;
  }
  for (int r = 0; r < s.cp; ++r) {
    bin.tokens[r] += ZigzagShare(l, s.cp, r);
    bin.work[r] += w / s.cp;
  }
  bin.sharded.push_back(i);
  return w;
}

// Skrull's per-GPU token budget; by default the uniform model's tokens per GPU, seq_len x micro_batch / cp
// (rounded up so that a full row's zigzag share always fits).
int64_t SkrullBudget(const DataShape& s) {
  return s.token_budget > 0 ? s.token_budget : (s.seq_len * s.micro_batch + s.cp - 1) / s.cp;
}

// Ok when every document's zigzag share fits the budget on every CP rank; else an infeasibility naming it.
Status CheckSkrullFits(const Prepared& p, const DataShape& s, int64_t budget) {
  for (size_t i = 0; i < p.docs.size(); ++i) {
    for (int r = 0; r < s.cp; ++r) {
      if (ZigzagShare(p.docs[i], s.cp, r) > budget) {
        return Error::Infeasible("skrull: document " + std::to_string(i) + " of " +
                                 std::to_string(p.docs[i]) + " tokens does not fit cp " +
                                 std::to_string(s.cp) + " x token_budget " + std::to_string(budget) +
                                 "; raise token_budget or lower max_len");
      }
    }
  }
  return Status::Ok();
}

// The documents (in `order`) placed greedily into m micro-batches per DP rank; none when they do not fit.
std::optional<std::vector<SkrullBin>> AssignSkrullBins(const Prepared& p, const DataShape& s,
                                                       const std::vector<int>& order, int64_t budget, int m) {
  int bins = m * s.dp;
  std::vector<SkrullBin> state(
      static_cast<size_t>(bins),
      SkrullBin{std::vector<int64_t>(s.cp, 0), std::vector<double>(s.cp, 0), {}, {}});
  bool ok = GreedyAssign(s.dp, m, order, [&](int b, int i) {
    return SkrullPlace(state[static_cast<size_t>(b)], i, p.docs[static_cast<size_t>(i)], budget, s);
  });
  if (!ok) return std::nullopt;
  return state;
}

// Lays out one bin as micro-batch `mb`: sharded documents over every CP rank, then local ones whole on their
// rank, each group in document order.
void PlaceSkrullBin(const Prepared& p, const DataShape& s, SkrullBin& bin, MicroBatch& mb) {
  std::sort(bin.sharded.begin(), bin.sharded.end());
  std::sort(bin.local.begin(), bin.local.end());
  for (int i : bin.sharded) {
    PlaceRow(Row{{WholeDocument(p.docs[static_cast<size_t>(i)])}, 0, p.docs[static_cast<size_t>(i)]},
             s.causal, mb);
  }
  for (auto [i, r] : bin.local) {
    int64_t l = p.docs[static_cast<size_t>(i)];
    PlaceWhole(Row{{WholeDocument(l)}, 0, l}, s.causal, mb.cp[static_cast<size_t>(r)]);
    ++mb.sequences;
  }
}

}  // namespace

Result<StepData> ScheduleSkrull(const Docs& docs, const DataShape& s) {
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(docs, s));
  const int64_t budget = SkrullBudget(s);
  DLSIM_RETURN_IF_ERROR(CheckSkrullFits(p, s, budget));
  std::vector<int> order = LongestFirst(p.docs);
  for (int m = InitialMicroBatches(p, s, budget * s.cp);; ++m) {
    std::optional<std::vector<SkrullBin>> state = AssignSkrullBins(p, s, order, budget, m);
    if (!state) continue;
    StepData step = NewStep(p, s);
    AllocateBins(step, s, m);
    for (int b = 0; b < m * s.dp; ++b)
      PlaceSkrullBin(p, s, (*state)[static_cast<size_t>(b)], BinAt(step, s, b));
    FinishStep(step);
    return step;
  }
}

}  // namespace dlsim::data::internal
