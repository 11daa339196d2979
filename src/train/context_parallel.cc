#include "dlsim/train/context_parallel.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "dlsim/model/dit.h"

namespace dlsim::train {

// ----- work and assignments -----

double AttentionWork::HeadWork(int h) const {
  double s = 0;
  for (int b = 0; b < blocks; ++b) s += At(h, b);
  return s;
}

double AttentionWork::Total() const { return std::accumulate(density.begin(), density.end(), 0.0); }

AttentionWork AttentionWork::Dense(int heads, int blocks) {
  return {heads, blocks, std::vector<double>(static_cast<size_t>(heads) * blocks, 1.0)};
}

std::vector<double> CpAssignment::RankWork(const AttentionWork& w) const {
  std::vector<double> out(static_cast<size_t>(ulysses) * ring, 0.0);
  for (int h = 0; h < w.heads; ++h) {
    const int g = head_group[h];
    for (int b = 0; b < w.blocks; ++b) out[g * ring + block_shard[g * w.blocks + b]] += w.At(h, b);
  }
  return out;
}

double CpAssignment::Balance(const AttentionWork& w) const {
  const std::vector<double> work = RankWork(w);
  const double mean = std::accumulate(work.begin(), work.end(), 0.0) / static_cast<double>(work.size());
  return mean > 0 ? *std::max_element(work.begin(), work.end()) / mean : 1.0;
}

double CpAssignment::MovedBlocks() const {
  if (block_shard.empty()) return 0;
  const int blocks = static_cast<int>(block_shard.size()) / ulysses, per = std::max(1, blocks / ring);
  int moved = 0;
  for (int g = 0; g < ulysses; ++g)
    for (int b = 0; b < blocks; ++b) moved += block_shard[g * blocks + b] != b / per;
  return static_cast<double>(moved) / static_cast<double>(block_shard.size());
}

int CpAssignment::HeadsOf(int group) const {
  return static_cast<int>(std::count(head_group.begin(), head_group.end(), group));
}

CpAssignment StandardAssignment(int heads, int blocks, int ulysses, int ring) {
  CpAssignment a{ulysses, ring, std::vector<int>(heads),
                 std::vector<int>(static_cast<size_t>(ulysses) * blocks)};
  const int base = heads / ulysses, extra = heads % ulysses;
  for (int g = 0, h = 0; g < ulysses; ++g)
    for (int i = 0; i < base + (g < extra ? 1 : 0); ++i) a.head_group[h++] = g;
  const int per = std::max(1, blocks / ring);  // blocks is a multiple of ring
  for (int g = 0; g < ulysses; ++g)
    for (int b = 0; b < blocks; ++b) a.block_shard[g * blocks + b] = b / per;
  return a;
}

namespace {

// Indices 0..n-1 by `key` descending (stable).
template <typename Key>
std::vector<int> ByDescending(int n, Key key) {
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return key(x) > key(y); });
  return order;
}

// Longest processing time first: each head to the group with the least work so far.
std::vector<int> AssignHeads(const AttentionWork& w, int ulysses) {
  std::vector<int> group(w.heads);
  std::vector<double> load(ulysses, 0.0);
  for (int h : ByDescending(w.heads, [&](int x) { return w.HeadWork(x); })) {
    const int g = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    group[h] = g;
    load[g] += w.HeadWork(h);
  }
  return group;
}

// Query blocks of one head group to ring shards, blocks / ring each: heaviest first to the lightest shard
// with room (its home shard on a tie).
void AssignBlocks(const AttentionWork& w, const std::vector<int>& head_group, int g, int ring,
                  std::vector<int>& shard_of) {
  std::vector<double> work(w.blocks, 0.0);
  for (int h = 0; h < w.heads; ++h)
    if (head_group[h] == g)
      for (int b = 0; b < w.blocks; ++b) work[b] += w.At(h, b);
  const int per = std::max(1, w.blocks / ring);
  std::vector<double> load(ring, 0.0);
  std::vector<int> room(ring, per);
  for (int b : ByDescending(w.blocks, [&](int x) { return work[x]; })) {
    int best = -1;
    for (int s = 0; s < ring; ++s) {
      if (room[s] == 0) continue;
      if (best < 0 || load[s] < load[best] || (load[s] == load[best] && s == b / per)) best = s;
    }
    shard_of[g * w.blocks + b] = best;
    load[best] += work[b];
    --room[best];
  }
}

}  // namespace

CpAssignment BalancedAssignment(const AttentionWork& w, int ulysses, int ring, bool move_blocks) {
  CpAssignment standard = StandardAssignment(w.heads, w.blocks, ulysses, ring);
  CpAssignment a{ulysses, ring, AssignHeads(w, ulysses), standard.block_shard};
  if (move_blocks)
    for (int g = 0; g < ulysses; ++g) AssignBlocks(w, a.head_group, g, ring, a.block_shard);
  return a.Balance(w) < standard.Balance(w) ? a : standard;
}

// ----- pricing -----

namespace {

// The step's collective and compute models and the group layouts of one u x r grid.
struct Grid {
  const CpEnv& env;
  int u, r;
  int cp_per_node;  // cp ranks on one node (they follow the tp ranks)
  net::GroupLayout a2a, all, ring_pair, ring_group;
};

Grid GridOf(const CpEnv& env, int u, int r) {
  const int per_node = std::clamp(env.ctx->gpus_per_node / std::max(1, env.tp), 1, env.cp);
  // A ring step is paced by its slowest hop: inside a node only when the whole ring is (the default ring
  // path of chunk_cost.h assumes an intra-node step whenever two cp ranks share a node).
  const int u_node = std::min(u, per_node), shards_per_node = std::max(1, per_node / u);
  return {env,
          u,
          r,
          per_node,
          {u, u_node},
          {env.cp, per_node},
          {2, r <= shards_per_node ? 2 : 1},
          {r, std::min(r, shards_per_node)}};
}

// One rank's part of a layer: its heads' mean density over its query blocks, its query tokens.
struct RankShare {
  std::vector<double> head_density;  // per head of the group
  int64_t queries = 0;               // query tokens per sequence
};

// Every rank's share of a layer, rank (g, s) at g * ring + s: one pass over the work matrix.
std::vector<RankShare> SharesOf(const AttentionWork& w, const CpAssignment& a, const CpEnv& env) {
  const int u = a.ulysses, r = a.ring;
  std::vector<RankShare> out(static_cast<size_t>(u) * r);
  std::vector<int> blocks(out.size(), 0);
  for (int g = 0; g < u; ++g)
    for (int b = 0; b < w.blocks; ++b) ++blocks[g * r + a.block_shard[g * w.blocks + b]];
  std::vector<double> sum(r);
  for (int h = 0; h < w.heads; ++h) {
    const int g = a.head_group[h];
    std::fill(sum.begin(), sum.end(), 0.0);
    for (int b = 0; b < w.blocks; ++b) sum[a.block_shard[g * w.blocks + b]] += w.At(h, b);
    for (int s = 0; s < r; ++s) {
      const int n = blocks[g * r + s];
      out[g * r + s].head_density.push_back(n > 0 ? sum[s] / n : 0);
    }
  }
  for (size_t k = 0; k < out.size(); ++k)
    out[k].queries = static_cast<int64_t>(std::llround(static_cast<double>(env.seq) * blocks[k] / w.blocks));
  return out;
}

// Attention kernels of one rank: dense heads as FlashAttention, sparse heads (density / efficiency < 1)
// by DSV's kernel: the same query blocks over density x seq keys, at kernel_efficiency of the dense rate.
struct Kernels {
  Duration fwd, bwd;
  Flops flops;
};
Kernels RankKernels(const RankShare& r, const CpEnv& env) {
  const SparsityOptions* sp = env.sparsity;
  const double eta = sp ? sp->kernel_efficiency : 1.0;
  std::map<int64_t, int64_t> dense, sparse;  // keys per query -> heads
  for (double d : r.head_density) {
    if (sp && d / eta < 1.0) {
      ++sparse[std::max<int64_t>(1, std::llround(d * static_cast<double>(env.seq)))];
    } else {
      ++dense[env.seq];
    }
  }
  auto shapes = [&](const std::map<int64_t, int64_t>& m, Flops& flops) {
    std::vector<cost::AttentionShape> out;
    for (const auto& [keys, heads] : m) {
      out.push_back({env.samples, heads, heads, r.queries, keys, env.head_dim, false});
      flops += out.back().ForwardFlops();
    }
    return out;
  };
  Kernels k;
  const cost::ComputeModel& cm = *env.ctx->compute;
  const std::vector<cost::AttentionShape> d = shapes(dense, k.flops), s = shapes(sparse, k.flops);
  k.fwd = cm.AttentionForwardVarlen(d, env.dtype);
  k.bwd = cm.AttentionBackwardVarlen(d, env.dtype);
  if (!s.empty()) {
    k.fwd += cm.AttentionForwardVarlen(s, env.dtype) * (1.0 / eta);
    k.bwd += cm.AttentionBackwardVarlen(s, env.dtype) * (1.0 / eta);
  }
  return k;
}

// DSV's predictor on one rank (forward; docs/dit.md): the low-rank query/key projection of the rank's own
// tokens for every head, the rank-r score estimation of its queries against all keys (a fused kernel,
// priced as attention of head width r / 2: 2 x pairs x r FLOPs), the top-k selection over 128 x 128
// block scores, and (ring > 1) the all-gather of the low-rank keys of its heads over the ring group.
struct Predictor {
  Duration compute, comm;
};
Predictor RankPredictor(const RankShare& r, const Grid& grid) {
  const CpEnv& env = grid.env;
  if (!env.sparsity) return {};
  const cost::ComputeModel& cm = *env.ctx->compute;
  const int64_t rank = env.sparsity->predictor_rank, heads = static_cast<int64_t>(r.head_density.size());
  const int64_t local = env.samples * env.seq / env.cp;
  Predictor p;
  p.compute = cm.Gemm({local, 2 * env.heads * rank, env.hidden, 1}, env.dtype);
  if (heads > 0 && r.queries > 0) {
    p.compute += cm.AttentionForward(
        {env.samples, heads, heads, r.queries, env.seq, std::max<int64_t>(1, rank / 2), false}, env.dtype);
    const double block_scores = static_cast<double>(env.samples * heads) * std::ceil(r.queries / 128.0) *
                                std::ceil(static_cast<double>(env.seq) / 128.0);
    p.compute +=
        cm.MemoryBound(Bytes(8 * block_scores), Flops(2 * block_scores), cost::MemoryKind::kElementwise);
  }
  if (grid.r > 1) {
    const Bytes keys(static_cast<double>(env.samples * env.seq * heads * rank) * 2.0);
    p.comm = env.ctx->comm->Time(net::Collective::kAllGather, keys, grid.ring_group, env.ctx->fabric);
  }
  return p;
}

// One all-to-all pass of a rank (Q, K, V in; O out): it sends its own tokens of every head and receives the
// tokens of its shard for its heads; the larger sets the time. Over the whole cp group when blocks moved.
Duration RankAllToAll(const RankShare& r, const Grid& grid, bool moved) {
  const CpEnv& env = grid.env;
  if (grid.u <= 1 && !moved) return Duration::Zero();
  const double kv_per_head = static_cast<double>(env.kv_heads) / env.heads;
  const double elem = 2.0 * env.head_dim * static_cast<double>(env.samples);  // bf16 bytes x samples
  const double local = static_cast<double>(env.seq) / env.cp;
  const double heads = static_cast<double>(r.head_density.size()), shard = static_cast<double>(r.queries);
  const double qkv_send = local * env.heads * (1 + 2 * kv_per_head) * elem;
  const double qkv_recv = shard * heads * (1 + 2 * kv_per_head) * elem;
  const double o_send = shard * heads * elem, o_recv = local * env.heads * elem;
  const net::GroupLayout& g = moved ? grid.all : grid.a2a;
  const net::CollectiveModel& c = *env.ctx->comm;
  return c.Time(net::Collective::kAllToAll, Bytes(std::max(qkv_send, qkv_recv)), g, env.ctx->fabric) +
         c.Time(net::Collective::kAllToAll, Bytes(std::max(o_send, o_recv)), g, env.ctx->fabric);
}

// Key/value bytes a rank receives from its r - 1 ring peers: for each of its heads, the other shards' keys
// and values, of which only the needed fraction min(1, kv_union x density) under sparsity.
Bytes RankKvBytes(const RankShare& r, const Grid& grid) {
  const CpEnv& env = grid.env;
  if (grid.r <= 1) return Bytes(0);
  const double kv_per_head = static_cast<double>(env.kv_heads) / env.heads;
  const double remote = static_cast<double>(env.seq) * (grid.r - 1) / grid.r * env.samples;
  double bytes = 0;
  for (double d : r.head_density) {
    const double needed = env.sparsity ? std::min(1.0, env.sparsity->kv_union * d) : 1.0;
    bytes += remote * 2 * kv_per_head * env.head_dim * 2.0 * needed;
  }
  return Bytes(bytes);
}

Duration MaxZero(Duration d) { return d > Duration::Zero() ? d : Duration::Zero(); }

CpLayerCost PriceRank(const RankShare& share, const Grid& grid, bool moved) {
  CpLayerCost c;
  const Kernels k = RankKernels(share, grid.env);
  const Predictor pred = RankPredictor(share, grid);
  c.attn_fwd = k.fwd;
  c.attn_bwd = k.bwd;
  c.flops = k.flops;
  c.predictor_fwd = pred.compute;
  c.a2a = RankAllToAll(share, grid, moved);
  c.kv_bytes = RankKvBytes(share, grid);
  if (grid.r > 1) {
    const int64_t steps = grid.r - 1;
    const Duration step = grid.env.ctx->comm->Time(net::Collective::kSendRecv, c.kv_bytes * (1.0 / steps),
                                                   grid.ring_pair, grid.env.ctx->fabric);
    c.ring = step * steps;
  }
  // Ring transfers overlap the attention of the previous block (chunk_cost.h's ring path).
  const double hidden = grid.r > 1 ? static_cast<double>(grid.r - 1) / grid.r : 0;
  c.fwd_compute = c.attn_fwd + c.predictor_fwd;
  c.bwd_compute = c.attn_bwd;
  c.fwd_comm = c.a2a + pred.comm + MaxZero(c.ring - c.attn_fwd * hidden);
  c.bwd_comm = c.a2a + MaxZero(c.ring * int64_t{2} - c.attn_bwd * hidden);
  return c;
}

Duration Total(const CpLayerCost& c) { return c.fwd_compute + c.bwd_compute + c.fwd_comm + c.bwd_comm; }

}  // namespace

CpLayerCost PriceAssignment(const AttentionWork& w, const CpAssignment& a, const CpEnv& env) {
  const Grid grid = GridOf(env, a.ulysses, a.ring);
  const bool moved = a.MovedBlocks() > 0;
  CpLayerCost worst;
  bool first = true;
  for (const RankShare& share : SharesOf(w, a, env)) {
    const CpLayerCost c = PriceRank(share, grid, moved);
    if (first || Total(c) > Total(worst)) worst = c;
    first = false;
  }
  worst.balance = a.Balance(w);
  return worst;
}

Duration StepAttentionTime(const CpLayerCost& c, Recompute recompute) {
  Duration t = Total(c);
  if (recompute != Recompute::kNone) t += c.fwd_compute;
  if (recompute == Recompute::kFull) t += c.fwd_comm;
  return t;
}

// ----- policies -----

namespace {

int CpPerNode(const CpEnv& env) {
  return std::clamp(env.ctx->gpus_per_node / std::max(1, env.tp), 1, env.cp);
}

std::vector<CpAssignment> Standard(const std::vector<AttentionWork>& layers, int u, int r) {
  std::vector<CpAssignment> out;
  for (const AttentionWork& w : layers) out.push_back(StandardAssignment(w.heads, w.blocks, u, r));
  return out;
}

Status HeadsDivide(const CpEnv& env, int u, const char* layout) {
  if (env.heads % u == 0) return Status::Ok();
  return Error::Infeasible(std::string("parallel.cp_layout ") + layout + ": the " +
                           std::to_string(env.heads) +
                           " heads of a tensor-parallel rank are not divisible by the " + std::to_string(u) +
                           " head groups (parallel.cp_ulysses)");
}

class RingLayout final : public CpLayoutPolicy {
 public:
  Result<std::vector<CpAssignment>> Assign(const std::vector<AttentionWork>& layers,
                                           const CpEnv& env) const override {
    return Standard(layers, 1, env.cp);
  }
};

class UlyssesLayout final : public CpLayoutPolicy {
 public:
  Result<std::vector<CpAssignment>> Assign(const std::vector<AttentionWork>& layers,
                                           const CpEnv& env) const override {
    DLSIM_RETURN_IF_ERROR(HeadsDivide(env, env.cp, "ulysses"));
    return Standard(layers, env.cp, 1);
  }
};

class HybridLayout final : public CpLayoutPolicy {
 public:
  Result<std::vector<CpAssignment>> Assign(const std::vector<AttentionWork>& layers,
                                           const CpEnv& env) const override {
    int u = env.requested_ulysses;
    if (u <= 0) {
      u = 1;
      for (int d = 1; d <= std::min(env.cp, CpPerNode(env)); ++d)
        if (env.cp % d == 0 && env.heads % d == 0) u = d;
    }
    if (env.cp % u != 0)
      return Error::Infeasible("parallel.cp_ulysses " + std::to_string(u) + " does not divide cp " +
                               std::to_string(env.cp));
    DLSIM_RETURN_IF_ERROR(HeadsDivide(env, u, "hybrid"));
    return Standard(layers, u, env.cp / u);
  }
};

// DSV: every u | cp with u <= heads; per layer the fastest of the standard assignment, heads re-balanced and
// heads and query blocks re-balanced; the u with the shortest sum over layers.
class DsvLayout final : public CpLayoutPolicy {
 public:
  Result<std::vector<CpAssignment>> Assign(const std::vector<AttentionWork>& layers,
                                           const CpEnv& env) const override {
    std::vector<CpAssignment> best;
    Duration best_time;
    for (int u = 1; u <= std::min(env.cp, env.heads); ++u) {
      if (env.cp % u != 0) continue;
      std::vector<CpAssignment> mine;
      Duration time, first;
      for (const AttentionWork& w : layers) {
        if (!env.sparsity && !mine.empty()) {  // dense layers are alike
          mine.push_back(mine.front());
          time += first;
          continue;
        }
        // The standard split, heads re-balanced, heads and query blocks re-balanced: the fastest.
        CpAssignment options[] = {StandardAssignment(w.heads, w.blocks, u, env.cp / u),
                                  BalancedAssignment(w, u, env.cp / u, false),
                                  BalancedAssignment(w, u, env.cp / u, true)};
        size_t pick = 0;
        for (size_t i = 0; i < std::size(options); ++i) {
          const Duration t = Total(PriceAssignment(w, options[i], env));
          if (i == 0 || t < first) {
            first = t;
            pick = i;
          }
        }
        mine.push_back(std::move(options[pick]));
        time += first;
      }
      if (best.empty() || time < best_time) {
        best = std::move(mine);
        best_time = time;
      }
    }
    return best;
  }
};

}  // namespace

void RegisterCpLayouts(CpLayoutRegistry& reg) {
  reg.RegisterBuiltin("ring", "sequence-wise: every rank all heads of 1/cp of the queries, K/V around a ring",
                      [] { return std::make_unique<RingLayout>(); });
  reg.RegisterBuiltin("ulysses",
                      "head-wise: an all-to-all gives every rank heads/cp whole heads (DeepSpeed-Ulysses)",
                      [] { return std::make_unique<UlyssesLayout>(); });
  reg.RegisterBuiltin("hybrid", "cp_ulysses head groups x ring shards, head groups innermost (USP)",
                      [] { return std::make_unique<HybridLayout>(); });
  reg.RegisterBuiltin("dsv",
                      "DSV's sparsity-aware hybrid: heads and query blocks re-balanced by their work, only "
                      "needed K/V exchanged, the fastest head-group x ring split",
                      [] { return std::make_unique<DsvLayout>(); });
}

// ----- the plan of a step -----

bool UsesCpLayout(const TrainOptions& o) {
  const bool dit_cp = o.model.arch == model::Arch::kDit && o.parallel.cp > 1;  // a DiT's CP: always a policy
  return o.parallel.cp_layout != "ring" || o.sparsity.has_value() || dit_cp;
}

namespace {

// Keys per sequence of the model's self or joint attention: latent tokens, plus text for an MMDiT.
int64_t AttentionSeq(const TrainOptions& o) {
  const model::ModelSpec& m = o.model;
  const bool joint = m.arch == model::Arch::kDit && !m.dit.cross_attention;
  return o.training.seq_len + (joint ? m.dit.text_tokens : 0);
}

CpEnv EnvOf(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx) {
  const model::ModelSpec& m = o.model;
  CpEnv env;
  env.ctx = &ctx;
  env.cp = plan.cp;
  env.tp = plan.tp;
  env.seq = AttentionSeq(o);
  env.samples = plan.micro_batch;
  env.heads = std::max(1, m.heads / plan.tp);
  env.kv_heads = std::max(1, m.kv_heads / plan.tp);
  env.head_dim = m.head_dim();
  env.hidden = m.hidden;
  env.dtype = o.training.precision == hw::DType::kFp8 ? hw::DType::kBf16 : o.training.precision;
  env.requested_ulysses = o.parallel.cp_ulysses;
  env.sparsity = o.sparsity ? &*o.sparsity : nullptr;
  return env;
}

}  // namespace

Result<CpAttentionPlan> PlanCpAttention(const TrainOptions& o, const ParallelPlan& plan,
                                        const StepContext& ctx) {
  const CpEnv env = EnvOf(o, plan, ctx);
  const int blocks = plan.cp * (o.sparsity ? std::max(1, o.sparsity->blocks_per_rank) : 1);
  std::vector<AttentionWork> layers;
  CpAttentionPlan out;
  out.layout = o.parallel.cp_layout;
  if (o.sparsity) {
    // The map of one tensor-parallel rank's heads (statistically the same for every tp rank).
    const SparsityMap map = DrawSparsity(*o.sparsity, o.model.layers, env.heads, blocks);
    out.mean_sparsity = map.MeanSparsity();
    for (int l = 0; l < o.model.layers; ++l) {
      const auto begin = map.density.begin() + static_cast<std::ptrdiff_t>(l) * env.heads * blocks;
      layers.push_back({env.heads, blocks, std::vector<double>(begin, begin + env.heads * blocks)});
    }
  } else {
    layers.assign(o.model.layers, AttentionWork::Dense(env.heads, blocks));
  }
  CpLayoutRegistry reg("cp-layout");
  RegisterCpLayouts(reg);
  DLSIM_ASSIGN_OR_RETURN(auto policy, reg.Create(o.parallel.cp_layout));
  DLSIM_ASSIGN_OR_RETURN(out.assignments, policy->Assign(layers, env));
  for (size_t l = 0; l < layers.size(); ++l) {
    // Dense layers are alike: price the first once.
    if (!o.sparsity && l > 0) {
      out.layers.push_back(out.layers.front());
      continue;
    }
    out.layers.push_back(PriceAssignment(layers[l], out.assignments[l], env));
  }
  if (!out.assignments.empty()) {
    out.ulysses = out.assignments.front().ulysses;
    out.ring = out.assignments.front().ring;
  }
  return out;
}

}  // namespace dlsim::train
