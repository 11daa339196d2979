#include "epoch.h"

#include <algorithm>

namespace dlsim::gnn::internal {
namespace {

struct MachineState {
  std::unique_ptr<Sampler> sampler;
  std::unique_ptr<FeatureCache> gpu_cache, host_cache;
  MiniBatch mb;
  std::vector<char> touched;  // remote machines seen in a hop
};

Result<MachineState> MakeState(const EpochSetup& s, const Registries& reg) {
  MachineState st;
  DLSIM_ASSIGN_OR_RETURN(st.sampler,
                         reg.samplers.Create(s.options.sampler, s.graph, s.options.sampler_options));
  const std::string& policy = s.options.cache.policy;
  DLSIM_ASSIGN_OR_RETURN(st.gpu_cache, reg.caches.Create(policy, {s.graph, s.gpu_cache_nodes, s.frequency}));
  DLSIM_ASSIGN_OR_RETURN(st.host_cache,
                         reg.caches.Create(policy, {s.graph, s.host_cache_nodes, s.frequency}));
  st.touched.assign(static_cast<size_t>(std::max(1, s.options.hardware.machines)), 0);
  return st;
}

// Where each feature read is served: GPU cache (the shard of node v is GPU v mod gpus), then the
// host (own features or the host cache), then another machine or the disk.
void CountReads(const EpochSetup& s, MachineState& st, int machine, int gpu, BatchCounts& c) {
  const FeatureStore store = s.options.store;
  for (NodeId v : st.mb.InputNodes()) {
    if (st.gpu_cache->Access(v)) {
      (static_cast<int>(v % static_cast<NodeId>(s.gpus)) == gpu ? c.gpu_local : c.gpu_peer)++;
      continue;
    }
    const bool own =
        store == FeatureStore::kHost || (store == FeatureStore::kPartitioned && s.part[v] == machine);
    if (own) {
      ++c.host;
    } else if (st.host_cache->Access(v)) {
      ++c.host;
      ++c.host_cache_hits;
    } else {
      (store == FeatureStore::kDisk ? c.disk : c.remote)++;
    }
  }
}

// Sampling requests that leave the machine: every frontier node sampled at hop h and owned by
// another machine, grouped into one round trip per (hop, machine).
void CountRemoteSampling(const EpochSetup& s, MachineState& st, int machine, BatchCounts& c) {
  if (s.options.hardware.machines <= 1) return;
  for (size_t h = 0; h + 1 < st.mb.frontiers.size(); ++h) {
    std::fill(st.touched.begin(), st.touched.end(), 0);
    int64_t remote = 0;
    for (NodeId v : st.mb.frontiers[h]) {
      const int32_t p = s.part[v];
      if (p == machine) continue;
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

std::vector<NodeId> MachineTrainNodes(const EpochSetup& s, int machine) {
  std::vector<NodeId> out;
  for (NodeId v : s.train)
    if (s.part[v] == machine) out.push_back(v);
  return out;
}

}  // namespace

Registries::Registries() {
  RegisterSamplers(samplers);
  RegisterSeedOrders(orders);
  RegisterCachePolicies(caches);
  RegisterPartitioners(partitioners);
}

Result<std::vector<BatchCounts>> RunMachineEpoch(const EpochSetup& s, const Registries& reg, int machine) {
  DLSIM_ASSIGN_OR_RETURN(MachineState st, MakeState(s, reg));
  DLSIM_ASSIGN_OR_RETURN(auto order, reg.orders.Create(s.options.order, s.graph, s.options.order_options));
  const Rng root = Rng(s.options.seed).Stream("gnn/machine/" + std::to_string(machine));
  Rng order_rng = root.Stream("order"), sample_rng = root.Stream("sample");
  const std::vector<NodeId> seeds = order->EpochOrder(MachineTrainNodes(s, machine), order_rng);
  const auto bs = static_cast<size_t>(s.options.batch_size);
  std::vector<BatchCounts> out;
  out.reserve((seeds.size() + bs - 1) / bs);
  for (size_t at = 0, b = 0; at < seeds.size(); at += bs, ++b) {
    const std::span<const NodeId> batch(seeds.data() + at, std::min(bs, seeds.size() - at));
    st.sampler->Sample(batch, sample_rng, st.mb);
    BatchCounts c = Summarise(st.mb);
    CountReads(s, st, machine, static_cast<int>(b % static_cast<size_t>(s.gpus)), c);
    CountRemoteSampling(s, st, machine, c);
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::vector<uint32_t>> PresampleFrequency(const EpochSetup& s, const Registries& reg) {
  DLSIM_ASSIGN_OR_RETURN(auto sampler,
                         reg.samplers.Create(s.options.sampler, s.graph, s.options.sampler_options));
  DLSIM_ASSIGN_OR_RETURN(auto order, reg.orders.Create("shuffle", s.graph, s.options.order_options));
  Rng rng = Rng(s.options.seed).Stream("gnn/presample");
  const std::vector<NodeId> seeds = order->EpochOrder(s.train, rng);
  std::vector<uint32_t> freq(static_cast<size_t>(s.graph.num_nodes()), 0);
  MiniBatch mb;
  const auto bs = static_cast<size_t>(s.options.batch_size);
  for (size_t at = 0; at < seeds.size(); at += bs) {
    sampler->Sample(std::span<const NodeId>(seeds.data() + at, std::min(bs, seeds.size() - at)), rng, mb);
    for (NodeId v : mb.InputNodes()) ++freq[v];
  }
  return freq;
}

}  // namespace dlsim::gnn::internal
