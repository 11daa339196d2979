// ChunkFlow (Yuan et al., ICML 2025): every micro-batch is one chunk of at most
// chunk_size tokens. Documents longer than a chunk are split into consecutive
// dependent chunks whose queries attend to the earlier chunks of the same
// document; shorter ones are packed into standalone chunks (best-fit
// decreasing). A long document's chunks stay together on one DP rank, in order;
// chunk groups go to DP ranks largest workload first (LPT). State-aware
// scheduling keeps the activations of only the last chunk_keep chunks of a long
// document (its chunks share a chain id: the simulator runs their backward passes
// in reverse order); the earlier ones are marked for recomputation, so memory is bounded
// by the chunk size plus the document's prefix K/V state. A dependent chunk's
// GPUs hold their shares of the earlier chunks' K/V (prefix_kv_tokens), and
// under CP those shares travel the ring with the chunk's own K/V.
#include <algorithm>
#include <map>
#include <queue>

#include "layout.h"
#include "policies.h"

namespace dlsim::data::internal {
namespace {

// Chunks that must run on one DP rank, in order.
struct Unit {
  std::vector<Row> chunks;
  double work = 0;
  bool dependent = false;  // the chunks of one long document
};

double RowWork(const Row& row, const DataShape& s) {
  double pairs = 0;
  for (const Segment& g : row.segments) {
    Load tmp;
    AddBlock(tmp, g.size(), s.causal ? g.end : g.span, s.causal);
    pairs += TotalAttentionPairs(tmp);
  }
  return Workload(static_cast<double>(row.size()), pairs, s);
}

std::vector<Unit> BuildUnits(const std::vector<int64_t>& docs, int64_t chunk, const DataShape& s) {
  std::vector<Unit> units;
  std::vector<int> shorts;
  for (int i : LongestFirst(docs)) {
    int64_t l = docs[static_cast<size_t>(i)];
    if (l <= chunk) {
      shorts.push_back(i);
      continue;
    }
    Unit u;
    u.dependent = true;
    for (int64_t a = 0; a < l; a += chunk) {
      int64_t b = std::min(l, a + chunk);
      u.chunks.push_back(Row{{Segment{a, b, l}}, 0, b - a});
    }
    units.push_back(std::move(u));
  }
  // Best-fit decreasing: the open chunk with the least room that still fits the
  // document.
  std::vector<Row> packed;
  std::multimap<int64_t, size_t> room;  // free tokens -> chunk index
  for (int i : shorts) {
    int64_t l = docs[static_cast<size_t>(i)];
    auto it = room.lower_bound(l);
    size_t c;
    if (it == room.end()) {
      c = packed.size();
      packed.emplace_back();
    } else {
      c = it->second;
      room.erase(it);
    }
    packed[c].segments.push_back(WholeDocument(l));
    packed[c].real_tokens += l;
    int64_t left = chunk - packed[c].real_tokens;
    if (left > 0) room.emplace(left, c);
  }
  for (Row& r : packed) units.push_back(Unit{{std::move(r)}, 0, false});
  for (Unit& u : units) {
    for (const Row& r : u.chunks) u.work += RowWork(r, s);
  }
  return units;
}

// Appends the chunks of `u` to a DP rank's micro-batches, in order. Each GPU of the CP group keeps
// its share of every earlier chunk's K/V (the prefix state); a later chunk's attention reads the
// whole prefix, so under CP (cp > 1) each GPU also passes its prefix share to the cp - 1 others.
// `chain`: the chain id of a dependent unit's chunks (-1 for a standalone chunk).
void PlaceUnit(const Unit& u, const DataShape& s, int chain, std::vector<MicroBatch>& out) {
  const int n = static_cast<int>(u.chunks.size());
  std::vector<int64_t> held(static_cast<size_t>(s.cp), 0);  // prefix K/V rows per CP rank
  for (int j = 0; j < n; ++j) {
    const Row& chunk = u.chunks[static_cast<size_t>(j)];
    MicroBatch mb = NewMicroBatch(s.cp);
    PlaceRow(chunk, s.causal, mb);
    mb.sequences = static_cast<int>(chunk.segments.size());
    mb.recompute = u.dependent && j < n - s.chunk_keep;
    mb.chain = chain;
    for (int r = 0; r < s.cp; ++r) {
      Load& load = mb.cp[static_cast<size_t>(r)];
      load.prefix_kv_tokens = held[static_cast<size_t>(r)];
      load.cp_kv_tokens += static_cast<int64_t>(s.cp - 1) * held[static_cast<size_t>(r)];
      if (u.dependent) held[static_cast<size_t>(r)] += ZigzagShare(chunk.size(), s.cp, r);
    }
    out.push_back(std::move(mb));
  }
}

}  // namespace

Result<StepData> ScheduleChunkFlow(const Docs& docs, const DataShape& s) {
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(docs, s));
  StepData step = NewStep(p, s);
  int64_t chunk = s.chunk_size > 0 ? s.chunk_size : s.seq_len;
  std::vector<Unit> units = BuildUnits(p.docs, chunk, s);
  std::stable_sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) { return a.work > b.work; });
  // LPT over DP ranks: (work, rank), least first; ties to the lower rank.
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ranks;
  for (int d = 0; d < s.dp; ++d) ranks.push({0.0, d});
  int chains = 0;
  for (const Unit& u : units) {
    auto [work, d] = ranks.top();
    ranks.pop();
    PlaceUnit(u, s, u.dependent ? chains++ : -1, step.dp[static_cast<size_t>(d)]);
    ranks.push({work + u.work, d});
  }
  FinishStep(step);
  return step;
}

}  // namespace dlsim::data::internal
