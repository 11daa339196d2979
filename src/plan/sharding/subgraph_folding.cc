#include "dlsim/plan/sharding/subgraph_folding.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>

namespace dlsim::plan {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

uint64_t Bits(double x) {
  uint64_t u = 0;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Operator i's input t relative to its block starting at `begin` (-1: from before the block).
int Relative(int t, int begin) { return t < begin ? -1 : t - begin; }

// A block's identity: every operator's kind, shapes, bytes and flops, width and edges relative to
// the block start. Hashed to find candidates, then compared field by field (SameBlock).
uint64_t BlockHash(const ShardingGraph& g, int begin, int end) {
  uint64_t h = static_cast<uint64_t>(end - begin);
  for (int i = begin; i < end; ++i) {
    const ShardOp& o = g.ops[i];
    h = Mix(h, std::hash<std::string>{}(o.op.name));
    for (uint64_t v : {static_cast<uint64_t>(o.kind), static_cast<uint64_t>(o.op.n),
                       static_cast<uint64_t>(o.op.k), Bits(o.op.bytes_per_token), Bits(o.op.flops_per_token),
                       Bits(o.width), static_cast<uint64_t>(o.op.access)}) {
      h = Mix(h, v);
    }
    for (int t : o.inputs) h = Mix(h, static_cast<uint64_t>(Relative(t, begin) + 1));
  }
  return h;
}

bool SameBlock(const ShardingGraph& g, const Block& a, int begin, int end) {
  if (a.end - a.begin != end - begin) return false;
  for (int x = 0; x < end - begin; ++x) {
    const ShardOp &p = g.ops[a.begin + x], &q = g.ops[begin + x];
    if (p.kind != q.kind || p.op.name != q.op.name || p.op.n != q.op.n || p.op.k != q.op.k ||
        p.op.bytes_per_token != q.op.bytes_per_token || p.op.flops_per_token != q.op.flops_per_token ||
        p.width != q.width || p.op.access != q.op.access || p.inputs.size() != q.inputs.size()) {
      return false;
    }
    for (size_t j = 0; j < p.inputs.size(); ++j) {
      if (Relative(p.inputs[j], a.begin) != Relative(q.inputs[j], begin)) return false;
    }
  }
  return true;
}

// The sub-graph of block [begin, end): its operators with inputs before the block mapped to -1.
ShardingGraph Extract(const ShardingGraph& g, int begin, int end) {
  ShardingGraph s;
  s.input_width = begin == 0 ? g.input_width : g.ops[begin - 1].width;
  for (int i = begin; i < end; ++i) {
    ShardOp o = g.ops[i];
    for (int& t : o.inputs) t = t < begin ? -1 : t - begin;
    s.ops.push_back(std::move(o));
  }
  return s;
}

using Table = std::array<ShardingPlans, kLayouts>;  // [entry][exit]

}  // namespace

std::vector<Block> FindBlocks(const ShardingGraph& g) {
  const int n = static_cast<int>(g.ops.size());
  std::vector<int> last_use(n + 1, -1);
  for (int i = 0; i < n; ++i) {
    for (int t : g.ops[i].inputs) last_use[t + 1] = std::max(last_use[t + 1], i);
  }
  std::vector<Block> blocks, firsts;  // firsts[u]: the first block of substructure u
  std::unordered_map<uint64_t, std::vector<int>>
      by_hash;                              // hash -> substructures (looked up, never iterated)
  int begin = 0, read_until = last_use[0];  // the latest read of any tensor produced before op i
  for (int i = 0; i < n; ++i) {
    // A cut after i: only i's output is live (no earlier tensor is read after i).
    const bool cut = i == n - 1 || read_until <= i;
    read_until = std::max(read_until, last_use[i + 1]);
    if (!cut) continue;
    std::vector<int>& candidates = by_hash[BlockHash(g, begin, i + 1)];
    int unique = -1;
    for (int u : candidates) {
      if (SameBlock(g, firsts[u], begin, i + 1)) unique = u;
    }
    if (unique < 0) {
      unique = static_cast<int>(firsts.size());
      candidates.push_back(unique);
      firsts.push_back({begin, i + 1, unique});
    }
    blocks.push_back({begin, i + 1, unique});
    begin = i + 1;
  }
  return blocks;
}

namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

// The chain DP over the blocks: best[k][l] is the cheapest way to leave block k-1 in layout l,
// from[k][l] the entry layout of block k-1 on that way.
struct Chain {
  std::vector<std::array<int64_t, kLayouts>> best;
  std::vector<std::array<int, kLayouts>> from;
};

Chain RunChain(const std::vector<Block>& blocks, const std::vector<Table>& tables,
               std::optional<Layout> input) {
  Chain c{std::vector<std::array<int64_t, kLayouts>>(blocks.size() + 1),
          std::vector<std::array<int, kLayouts>>(blocks.size() + 1)};
  c.best[0].fill(kNone);
  for (int e = 0; e < kLayouts - 1; ++e) {  // the graph input: never a partial sum
    if (!input || static_cast<int>(*input) == e) c.best[0][e] = 0;
  }
  for (size_t k = 0; k < blocks.size(); ++k) {
    c.best[k + 1].fill(kNone);
    const Table& t = tables[blocks[k].unique];
    for (int e = 0; e < kLayouts; ++e) {
      if (c.best[k][e] == kNone) continue;
      for (int x = 0; x < kLayouts; ++x) {
        if (!t[e][x]) continue;
        const int64_t cost = c.best[k][e] + t[e][x]->cost.ToNanos();
        if (cost < c.best[k + 1][x]) {
          c.best[k + 1][x] = cost;
          c.from[k + 1][x] = e;
        }
      }
    }
  }
  return c;
}

// Every block takes its unique block's plan for the (entry, exit) pair the chain chose.
ShardingPlan Unfold(const std::vector<Block>& blocks, const std::vector<Table>& tables, const Chain& c,
                    int exit, size_t ops) {
  ShardingPlan plan;
  plan.cost = Duration::Nanos(c.best[blocks.size()][exit]);
  plan.output = static_cast<Layout>(exit);
  plan.strategy.assign(ops, 0);
  for (size_t k = blocks.size(); k > 0; --k) {
    const int e = c.from[k][exit];
    const ShardingPlan& p = *tables[blocks[k - 1].unique][e][exit];
    std::copy(p.strategy.begin(), p.strategy.end(), plan.strategy.begin() + blocks[k - 1].begin);
    exit = e;
  }
  plan.input = static_cast<Layout>(exit);
  return plan;
}

}  // namespace

FoldedSearch SearchFolded(const ShardingGraph& g, const ShardingCostModel& cost,
                          std::optional<Layout> input) {
  FoldedSearch r;
  const std::vector<Block> blocks = FindBlocks(g);
  r.blocks = static_cast<int>(blocks.size());
  std::vector<Table> tables;
  for (const Block& b : blocks) {
    if (b.unique < static_cast<int>(tables.size())) continue;
    const ShardingGraph sub = Extract(g, b.begin, b.end);
    Table t;
    for (int e = 0; e < kLayouts; ++e) {
      t[e] = SearchSharding(sub, cost, static_cast<Layout>(e));
      if (const ShardingPlan* p = Best(t[e])) r.states += p->states;
    }
    tables.push_back(std::move(t));
  }
  r.unique_blocks = static_cast<int>(tables.size());
  const Chain c = RunChain(blocks, tables, input);
  int exit = -1;
  for (int x = 0; x < kLayouts; ++x) {
    const int64_t v = c.best[blocks.size()][x];
    if (v != kNone && (exit < 0 || v < c.best[blocks.size()][exit])) exit = x;
  }
  if (exit < 0) return r;
  r.plan = Unfold(blocks, tables, c, exit, g.ops.size());
  r.plan->states = r.states;
  return r;
}

}  // namespace dlsim::plan
