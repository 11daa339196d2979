// DistCA (core attention disaggregation). The linear (per-token) work is balanced by token count at
// token level, as the paper places it: documents in sampling order fill the (DP rank, micro-batch)
// slots one after the other, every slot exactly its share of the step's tokens, and a document that
// reaches a slot's share continues in the next slot. A piece [a, b) of a document attends to keys
// [0, b): the K/V of the earlier pieces travel from the slots that hold them (server_kv tokens), since
// core attention is disaggregated and needs no context parallelism. Then core attention is cut into
// token-level tasks (blocks of query rows with their causal key prefix) and rebalanced over every
// GPU of the DP x CP group, micro-batch index by micro-batch index, so each GPU's attention pairs
// end near the mean. The greedy follows the DistCA planner: the neediest GPU first; it takes
// tasks from GPUs above the mean, cheapest bytes per pair first, splitting a task when only part
// of it is needed. Moved tasks ship Q out, O back and the K/V of their key prefix (server_* token
// counts); overlapping that traffic (ping-pong) is the simulator's business.
#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

#include "layout.h"
#include "policies.h"

namespace dlsim::data::internal {
namespace {

double Pairs(const AttentionBlock& b) { return b.Pairs(); }

// Bytes (in token rows) per pair of moving the whole block: Q out + O back + K/V prefix.
double Priority(const AttentionBlock& b) {
  return (2.0 * static_cast<double>(b.seq_q) + static_cast<double>(b.seq_kv)) / std::max(1.0, Pairs(b));
}

// The largest m >= 1 such that the last m query rows of `b` hold at most `amount` pairs.
int64_t RowsFor(const AttentionBlock& b, double amount) {
  double kv = static_cast<double>(b.seq_kv);
  double m;
  if (b.causal) {
    double c = 2 * kv + 1;
    m = std::floor((c - std::sqrt(std::max(0.0, c * c - 8 * amount))) / 2);
  } else {
    m = std::floor(amount / kv);
  }
  auto rows = static_cast<int64_t>(std::clamp(m, 1.0, static_cast<double>(b.seq_q)));
  auto pairs = [&](int64_t r) { return AttentionBlock{r, b.seq_kv, 1, b.causal}.Pairs(); };
  while (rows > 1 && pairs(rows) > amount) --rows;
  while (rows < b.seq_q && pairs(rows + 1) <= amount) ++rows;
  return rows;
}

using Task = std::tuple<double, size_t, size_t>;  // (priority, gpu, item)
using TaskQueue = std::priority_queue<Task, std::vector<Task>, std::greater<>>;

// One rebalancing in progress over the loads of one micro-batch index.
struct Balance {
  const std::vector<Load*>& gpus;
  std::vector<std::vector<AttentionBlock>> items;     // [gpu] its own blocks, one sequence each
  std::vector<std::vector<AttentionBlock>> received;  // [gpu] blocks moved to it
  std::vector<double> pairs;                          // [gpu] attention pairs it holds now
  double mean = 0;                                    // pairs per GPU
};

// Splits every GPU's attention into blocks of one sequence each and sums its pairs and their mean.
Balance StartBalance(const std::vector<Load*>& gpus) {
  const size_t n = gpus.size();
  Balance bal{gpus, std::vector<std::vector<AttentionBlock>>(n), std::vector<std::vector<AttentionBlock>>(n),
              std::vector<double>(n, 0), 0};
  double total = 0;
  for (size_t g = 0; g < n; ++g) {
    for (const AttentionBlock& b : gpus[g]->attention) {
      for (int64_t c = 0; c < b.count; ++c)
        bal.items[g].push_back(AttentionBlock{b.seq_q, b.seq_kv, 1, b.causal});
    }
    bal.pairs[g] = TotalAttentionPairs(*gpus[g]);
    total += bal.pairs[g];
  }
  bal.mean = total / static_cast<double>(n);
  return bal;
}

// Queues the blocks of the GPUs above the mean, cheapest bytes per pair first, and lists the GPUs below it,
// neediest first.
void QueueTasks(const Balance& bal, TaskQueue& tasks, std::vector<size_t>& needy) {
  for (size_t g = 0; g < bal.gpus.size(); ++g) {
    if (bal.pairs[g] > bal.mean) {
      for (size_t i = 0; i < bal.items[g].size(); ++i) tasks.push({Priority(bal.items[g][i]), g, i});
    } else if (bal.pairs[g] < bal.mean) {
      needy.push_back(g);
    }
  }
  std::stable_sort(needy.begin(), needy.end(),
                   [&](size_t a, size_t b) { return bal.pairs[a] < bal.pairs[b]; });
}

// Moves the query rows of the cheapest queued task that GPU `r` needs and its donor can spare to `r`, with
// the token traffic it causes; the rest of the task goes back in the queue.
void TakeTask(Balance& bal, size_t r, TaskQueue& tasks) {
  auto [prio, d, i] = tasks.top();
  tasks.pop();
  AttentionBlock& b = bal.items[d][i];
  double surplus = bal.pairs[d] - bal.mean;
  if (surplus <= 0 || b.seq_q == 0) return;
  double amount = std::min(bal.mean - bal.pairs[r], surplus);
  int64_t rows = Pairs(b) <= amount ? b.seq_q : RowsFor(b, amount);
  AttentionBlock moved{rows, b.seq_kv, 1, b.causal};
  b = AttentionBlock{b.seq_q - rows, b.causal ? b.seq_kv - rows : b.seq_kv, 1, b.causal};
  bal.pairs[d] -= moved.Pairs();
  bal.pairs[r] += moved.Pairs();
  bal.received[r].push_back(moved);
  bal.gpus[d]->server_q_tokens_out += moved.seq_q;
  bal.gpus[d]->server_kv_tokens_out += moved.seq_kv;
  bal.gpus[r]->server_q_tokens_in += moved.seq_q;
  bal.gpus[r]->server_kv_tokens_in += moved.seq_kv;
  if (b.seq_q > 0) tasks.push({Priority(b), d, i});
}

// Rebuilds every GPU's attention from the blocks it kept and the blocks it received.
void FinishBalance(const Balance& bal) {
  for (size_t g = 0; g < bal.gpus.size(); ++g) {
    bal.gpus[g]->attention.clear();
    for (const auto* list : {&bal.items[g], &bal.received[g]}) {
      for (const AttentionBlock& b : *list) AddBlock(*bal.gpus[g], b.seq_q, b.seq_kv, b.causal);
    }
  }
}

// Rebalances the attention of `gpus` (the loads of one micro-batch index over all DP x CP GPUs).
void Rebalance(const std::vector<Load*>& gpus, double tolerance) {
  Balance bal = StartBalance(gpus);
  if (bal.mean <= 0) return;
  TaskQueue tasks;
  std::vector<size_t> needy;
  QueueTasks(bal, tasks, needy);
  for (size_t r : needy) {
    while (bal.mean - bal.pairs[r] > tolerance * bal.mean && !tasks.empty()) TakeTask(bal, r, tasks);
  }
  FinishBalance(bal);
}

// Slot b is micro-batch b / dp of DP rank b % dp (consecutive slots spread over the ranks).
MicroBatch& SlotAt(StepData& step, int dp, int64_t b) {
  return step.dp[static_cast<size_t>(b % dp)][static_cast<size_t>(b / dp)];
}

// A piece of a document: the slot that holds it and its length.
struct Piece {
  int64_t slot = 0;
  int64_t length = 0;
};

// The K/V of the document's earlier pieces travel to the slot of a later piece, unless they are on the
// same DP rank already (an earlier micro-batch of the same GPUs keeps them, as ChunkFlow's prefix).
void ShipPrefix(StepData& step, const DataShape& s, const std::vector<Piece>& earlier, int64_t slot) {
  MicroBatch& to = SlotAt(step, s.dp, slot);
  for (const Piece& e : earlier) {
    if (e.slot % s.dp == slot % s.dp) continue;
    MicroBatch& from = SlotAt(step, s.dp, e.slot);
    for (int r = 0; r < s.cp; ++r) {
      const int64_t rows = ZigzagShare(e.length, s.cp, r);
      from.cp[static_cast<size_t>(r)].server_kv_tokens_out += rows;
      to.cp[static_cast<size_t>(r)].server_kv_tokens_in += rows;
    }
  }
}

// Places the documents in sampling order into equal token shares (slots), splitting a document where a
// share ends.
StepData SplitByTokens(const Prepared& p, const DataShape& s) {
  StepData step = NewStep(p, s);
  const int64_t per_rank = InitialMicroBatches(p, s, MicroBatchCapacity(s)), slots = per_rank * s.dp;
  for (auto& rank : step.dp) rank.assign(static_cast<size_t>(per_rank), NewMicroBatch(s.cp));
  auto share = [&](int64_t b) { return (p.real_tokens * (b + 1)) / slots - (p.real_tokens * b) / slots; };
  int64_t slot = 0, used = 0;
  for (int64_t l : p.docs) {
    std::vector<Piece> earlier;
    for (int64_t a = 0; a < l;) {
      while (slot + 1 < slots && used >= share(slot)) {
        ++slot;
        used = 0;
      }
      const int64_t piece = std::min(l - a, std::max<int64_t>(1, share(slot) - used));
      PlaceRow(Row{{Segment{a, a + piece, l}}, 0, piece}, s.causal, SlotAt(step, s.dp, slot));
      ShipPrefix(step, s, earlier, slot);
      earlier.push_back({slot, piece});
      a += piece;
      used += piece;
    }
  }
  return step;
}

}  // namespace

Result<StepData> ScheduleDistCa(const Docs& docs, const DataShape& s) {
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(docs, s));
  StepData step = SplitByTokens(p, s);
  size_t depth = 0;
  for (const auto& rank : step.dp) depth = std::max(depth, rank.size());
  for (size_t k = 0; k < depth; ++k) {
    std::vector<Load*> gpus;
    for (auto& rank : step.dp) {
      // An empty micro-batch (fewer documents than slots) is dropped later; it serves nothing.
      if (k >= rank.size() || rank[k].sequences == 0) continue;
      for (Load& l : rank[k].cp) gpus.push_back(&l);
    }
    Rebalance(gpus, kDistcaTolerance);
  }
  FinishStep(step);
  return step;
}

}  // namespace dlsim::data::internal
