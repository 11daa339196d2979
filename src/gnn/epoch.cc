#include "epoch.h"

#include <algorithm>

#include "dlsim/core/cancel.h"

namespace dlsim::gnn::internal {
namespace {

constexpr int64_t kPage = 4096;
// The inspector holds at most this many reads (256 MiB of ids) before the executor runs.
constexpr size_t kMaxWindow = size_t{1} << 26;

struct MachineState {
  std::unique_ptr<Sampler> sampler;
  std::unique_ptr<FeatureCache> gpu_cache, host_cache;  // host_cache: the page cache with disk.page_cache
  const TopologyCache* topology = nullptr;
  MiniBatch mb;
  std::vector<char> touched;  // remote machines seen in a hop
};

// One sampled batch of a superbatch, between the inspector (sampling) and the executor (reads).
struct Inspected {
  BatchCounts counts;
  std::vector<NodeId> inputs;   // the batch's feature reads, in order
  std::vector<NodeId> pending;  // reads that missed the GPU cache and are not the machine's own
};

bool PageMode(const EpochSetup& s) { return s.options.disk.page_cache; }

Result<MachineState> MakeState(const EpochSetup& s, const Registries& reg, int machine) {
  MachineState st;
  DLSIM_ASSIGN_OR_RETURN(st.sampler,
                         reg.samplers.Create(s.options.sampler, s.graph, s.options.sampler_options));
  const std::string& policy = s.options.cache.policy;
  DLSIM_ASSIGN_OR_RETURN(st.gpu_cache, reg.caches.Create(policy, {s.graph, s.gpu_cache_nodes, s.frequency}));
  if (PageMode(s)) {
    const int64_t pages =
        TopologyFilePages(s.graph) +
        (s.graph.num_nodes() * static_cast<int64_t>(s.options.features.PerNode().ToBytes()) + kPage - 1) /
            kPage;
    DLSIM_ASSIGN_OR_RETURN(
        st.host_cache, reg.caches.Create("lru", {s.graph, std::min(s.page_cache_pages, pages), {}, pages}));
  } else {
    DLSIM_ASSIGN_OR_RETURN(st.host_cache,
                           reg.caches.Create(policy, {s.graph, s.host_cache_nodes, s.frequency}));
  }
  if (!s.topology.empty()) st.topology = s.topology[static_cast<size_t>(machine)].get();
  st.touched.assign(static_cast<size_t>(std::max(1, s.options.hardware.machines)), 0);
  return st;
}

// Pages [first, last] of `bytes` bytes at `offset` in a file.
template <typename Fn>
void ForPages(int64_t offset, int64_t bytes, int64_t base, Fn&& fn) {
  if (bytes <= 0) return;
  for (int64_t p = offset / kPage; p <= (offset + bytes - 1) / kPage; ++p) fn(base + p);
}

// Topology on disk: the batch's distinct sampled-from nodes (frontiers[hops - 1] holds every
// earlier frontier) read their lists from the topology cache, the page cache or the disk.
void CountTopology(const EpochSetup& s, MachineState& st, BatchCounts& c) {
  if (s.options.topology.store != TopologyStore::kDisk || st.mb.frontiers.size() < 2) return;
  const Csr& csr = s.graph.csr();
  const bool paged = PageMode(s);
  for (NodeId v : st.mb.frontiers[st.mb.frontiers.size() - 2]) {
    ++c.adjacency_reads;
    if (st.topology && st.topology->Holds(v)) {
      ++c.topology_hits;
      continue;
    }
    const auto deg = static_cast<int64_t>(csr.offsets[v + 1] - csr.offsets[v]);
    ForPages(static_cast<int64_t>(csr.offsets[v]) * 4, deg * 4, 0, [&](int64_t page) {
      if (paged && st.host_cache->Access(static_cast<NodeId>(page))) return;
      ++c.topology_pages;
      ++c.disk_pages;
    });
  }
}

// Sampling requests that leave the machine: every frontier node sampled at hop h, owned by another
// machine and not in the topology cache, grouped into one round trip per (hop, machine).
void CountRemoteSampling(const EpochSetup& s, MachineState& st, int machine, BatchCounts& c) {
  if (s.options.hardware.machines <= 1) return;
  for (size_t h = 0; h + 1 < st.mb.frontiers.size(); ++h) {
    std::fill(st.touched.begin(), st.touched.end(), 0);
    int64_t remote = 0;
    for (NodeId v : st.mb.frontiers[h]) {
      const int32_t p = s.part[v];
      if (p == machine) continue;
      ++c.adjacency_reads;
      if (st.topology && st.topology->Holds(v)) {
        ++c.topology_hits;
        continue;
      }
      ++remote;
      c.round_trips += st.touched[static_cast<size_t>(p)] ? 0 : 1;
      st.touched[static_cast<size_t>(p)] = 1;
    }
    c.remote_requests += remote;
    const auto n = static_cast<double>(st.mb.frontiers[h].size());
    if (n > 0) c.remote_edges += static_cast<double>(st.mb.edges[h]) * static_cast<double>(remote) / n;
  }
}

BatchCounts Summarise(const MiniBatch& mb) {
  BatchCounts c;
  for (const auto& f : mb.frontiers) c.frontier.push_back(static_cast<int64_t>(f.size()));
  c.hop_edges = mb.edges;
  c.edges = mb.TotalEdges();
  return c;
}

// The GPU cache (node v's shard is GPU v mod gpus), then the machine's own host features; what is
// left goes to `pending` for the host cache. A foresight policy is told the superbatch's reads first.
void GpuPass(const EpochSetup& s, MachineState& st, int machine, size_t first_batch,
             std::vector<Inspected>& sb) {
  if (st.gpu_cache->WantsForesight()) {
    std::vector<NodeId> all;
    for (const Inspected& b : sb) all.insert(all.end(), b.inputs.begin(), b.inputs.end());
    st.gpu_cache->Foresee(all);
  }
  const FeatureStore store = s.options.store;
  for (size_t i = 0; i < sb.size(); ++i) {
    BatchCounts& c = sb[i].counts;
    const int gpu = static_cast<int>((first_batch + i) % static_cast<size_t>(s.gpus));
    for (NodeId v : sb[i].inputs) {
      if (st.gpu_cache->Access(v)) {
        (static_cast<int>(v % static_cast<NodeId>(s.gpus)) == gpu ? c.gpu_local : c.gpu_peer)++;
        continue;
      }
      const bool own =
          store == FeatureStore::kHost || (store == FeatureStore::kPartitioned && s.part[v] == machine);
      if (own) {
        ++c.host;
      } else {
        sb[i].pending.push_back(v);
      }
    }
  }
}

// Page cache: a row is served from memory when every page of it is cached.
void PagedRead(const EpochSetup& s, MachineState& st, NodeId v, BatchCounts& c) {
  const auto row = static_cast<int64_t>(s.options.features.PerNode().ToBytes());
  int64_t missed = 0;
  ForPages(static_cast<int64_t>(v) * row, row, TopologyFilePages(s.graph), [&](int64_t page) {
    if (!st.host_cache->Access(static_cast<NodeId>(page))) ++missed;
  });
  c.disk_pages += missed;
  if (missed == 0) {
    ++c.host;
    ++c.host_cache_hits;
  } else {
    ++c.disk;
  }
}

// The host cache in front of the network or the disk.
void HostPass(const EpochSetup& s, MachineState& st, std::vector<Inspected>& sb) {
  const bool paged = PageMode(s);
  if (!paged && st.host_cache->WantsForesight()) {
    std::vector<NodeId> all;
    for (const Inspected& b : sb) all.insert(all.end(), b.pending.begin(), b.pending.end());
    st.host_cache->Foresee(all);
  }
  const bool disk = s.options.store == FeatureStore::kDisk;
  const auto row_pages = (static_cast<int64_t>(s.options.features.PerNode().ToBytes()) + kPage - 1) / kPage;
  for (Inspected& b : sb) {
    BatchCounts& c = b.counts;
    for (NodeId v : b.pending) {
      if (paged) {
        PagedRead(s, st, v, c);
      } else if (st.host_cache->Access(v)) {
        ++c.host;
        ++c.host_cache_hits;
      } else if (disk) {
        ++c.disk;
        c.disk_pages += row_pages;
      } else {
        ++c.remote;
      }
    }
  }
}

std::vector<NodeId> MachineTrainNodes(const EpochSetup& s, int machine) {
  std::vector<NodeId> out;
  for (NodeId v : s.train)
    if (s.part[v] == machine) out.push_back(v);
  return out;
}

}  // namespace

int64_t ListPages(const Graph& g, NodeId v) {
  const Csr& csr = g.csr();
  const auto deg = static_cast<int64_t>(csr.offsets[v + 1] - csr.offsets[v]);
  if (deg == 0) return 0;
  const auto first = static_cast<int64_t>(csr.offsets[v]) * 4;
  return (first + deg * 4 - 1) / kPage - first / kPage + 1;
}

int64_t TopologyFilePages(const Graph& g) { return (g.num_edges() * 4 + kPage - 1) / kPage; }

Registries::Registries() {
  RegisterSamplers(samplers);
  RegisterSeedOrders(orders);
  RegisterCachePolicies(caches);
  RegisterPartitioners(partitioners);
  RegisterTopologyCaches(topology_caches);
}

Result<std::vector<BatchCounts>> RunMachineEpoch(const EpochSetup& s, const Registries& reg, int machine) {
  DLSIM_ASSIGN_OR_RETURN(MachineState st, MakeState(s, reg, machine));
  DLSIM_ASSIGN_OR_RETURN(auto order, reg.orders.Create(s.options.order, s.graph, s.options.order_options));
  const Rng root = Rng(s.options.seed).Stream("gnn/machine/" + std::to_string(machine));
  Rng order_rng = root.Stream("order"), sample_rng = root.Stream("sample");
  const std::vector<NodeId> seeds = order->EpochOrder(MachineTrainNodes(s, machine), order_rng);
  const auto bs = static_cast<size_t>(s.options.batch_size);
  const auto ahead = static_cast<size_t>(std::max(1, s.options.disk.superbatch));
  std::vector<BatchCounts> out;
  out.reserve((seeds.size() + bs - 1) / bs);
  std::vector<Inspected> sb;
  for (size_t at = 0; at < seeds.size();) {
    sb.clear();
    const size_t first_batch = out.size();
    size_t held = 0;  // reads of the superbatch so far: the window ends early at kMaxWindow
    for (; at < seeds.size() && sb.size() < ahead && held < kMaxWindow; at += bs) {  // the inspector
      const std::span<const NodeId> batch(seeds.data() + at, std::min(bs, seeds.size() - at));
      st.sampler->Sample(batch, sample_rng, st.mb);
      Inspected b{Summarise(st.mb), st.mb.InputNodes(), {}};
      CountTopology(s, st, b.counts);
      CountRemoteSampling(s, st, machine, b.counts);
      held += b.inputs.size();
      sb.push_back(std::move(b));
    }
    GpuPass(s, st, machine, first_batch, sb);
    HostPass(s, st, sb);
    for (Inspected& b : sb) out.push_back(std::move(b.counts));
    if (s.on_seeds) s.on_seeds(std::min(at, seeds.size()));
    if (CancelRequested()) return CancelledError();
  }
  return out;
}

Result<Presample> PresampleEpoch(const EpochSetup& s, const Registries& reg) {
  DLSIM_ASSIGN_OR_RETURN(auto sampler,
                         reg.samplers.Create(s.options.sampler, s.graph, s.options.sampler_options));
  DLSIM_ASSIGN_OR_RETURN(auto order, reg.orders.Create("shuffle", s.graph, s.options.order_options));
  Rng rng = Rng(s.options.seed).Stream("gnn/presample");
  const std::vector<NodeId> seeds = order->EpochOrder(s.train, rng);
  Presample p;
  p.features.assign(static_cast<size_t>(s.graph.num_nodes()), 0);
  p.adjacency.assign(p.features.size(), 0);
  MiniBatch mb;
  const auto bs = static_cast<size_t>(s.options.batch_size);
  for (size_t at = 0; at < seeds.size(); at += bs) {
    sampler->Sample(std::span<const NodeId>(seeds.data() + at, std::min(bs, seeds.size() - at)), rng, mb);
    for (NodeId v : mb.InputNodes()) ++p.features[v];
    if (mb.frontiers.size() >= 2)
      for (NodeId v : mb.frontiers[mb.frontiers.size() - 2]) ++p.adjacency[v];
  }
  return p;
}

}  // namespace dlsim::gnn::internal
