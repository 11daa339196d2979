// The two architectures' iteration prices (include/dlsim/studies/recsys/iteration.h).
#include "dlsim/studies/recsys/iteration.h"

#include <algorithm>
#include <map>

namespace dlsim::recsys {
namespace {

// What the embedding layer moves and launches, per GPU and pass, for a grouping of the tables.
struct Groups {
  std::vector<double> row_bytes;  // per group: bytes of the rows one sample looks up
  int fields = 0;                 // tables (for the interaction kernels)
};

Groups MakeGroups(const RecModel& m, bool packing) {
  Groups g;
  g.fields = static_cast<int>(m.tables.size());
  std::map<int, double> by_dim;  // packing merges tables of equal dimension
  for (const EmbeddingTable& t : m.tables) {
    const double bytes = 4.0 * t.dim * t.hotness;
    if (packing) {
      by_dim[t.dim] += bytes;
    } else {
      g.row_bytes.push_back(bytes);
    }
  }
  for (const auto& [dim, bytes] : by_dim) g.row_bytes.push_back(bytes);
  return g;
}

double SumBytes(const Groups& g) {
  double s = 0;
  for (double b : g.row_bytes) s += b;
  return s;
}

double MlpMacs(const RecModel& m) {
  double in = m.FeatureWidth(), macs = 0;
  for (int out : m.mlp) macs += in * out, in = out;
  return macs;
}

// GPU work shared by both architectures: the interaction module and the dense layers, forward and
// backward. Unpacked, each field runs its own small kernels, each reading and writing its slice;
// packed, a group's kernels are fused into one pass.
struct DenseWork {
  Duration memory, compute;
  long long kernels = 0;
};

DenseWork Dense(const RecModel& m, const RecCluster& c, const Groups& g, bool packing) {
  const double b = c.batch_per_gpu;
  const int units = packing ? static_cast<int>(g.row_bytes.size()) : g.fields;
  const double passes = packing ? 1 : m.interaction_kernels_per_field;
  DenseWork w;
  w.kernels =
      2LL * units * m.interaction_kernels_per_field / (packing ? m.interaction_kernels_per_field : 1) +
      3LL * static_cast<long long>(m.mlp.size());
  const Bytes moved = ByteCount(2 * 2 * passes * b * 4.0 * m.FeatureWidth());
  w.memory = moved / c.hbm_bw;
  w.compute = FlopCount(6 * b * MlpMacs(m)) / (c.gpu_flops * c.mlp_efficiency);
  return w;
}

// Two-stage pipeline of `mb` equal micro-batches: stage a (communication and memory) then b (compute).
Duration Pipeline(Duration a, Duration b, int mb) {
  const double n = std::max(1, mb);
  return Seconds((a.ToSeconds() + b.ToSeconds()) / n + (n - 1) / n * std::max(a, b).ToSeconds());
}

IterationBreakdown Finish(IterationBreakdown r, const RecCluster& c, Duration stage_a, Duration stage_b,
                          int mb) {
  r.iteration = std::max(r.launch, Pipeline(stage_a, stage_b, mb));
  r.samples_per_second = static_cast<double>(c.batch_per_gpu) * c.gpus() / r.iteration.ToSeconds();
  return r;
}

}  // namespace

IterationBreakdown PriceGpuCentric(const RecModel& m, const RecCluster& c, const Knobs& k) {
  const Groups g = MakeGroups(m, k.packing);
  const DenseWork d = Dense(m, c, g, k.packing);
  const int mb = std::max(1, k.micro_batches);
  const double b = c.batch_per_gpu;
  IterationBreakdown r;
  // Lookup forward (gather) and backward (unique + scatter-add): 3 kernels and 3 row passes per group.
  r.kernels = (3LL * static_cast<long long>(g.row_bytes.size()) + d.kernels) * mb + g.row_bytes.size() + 1;
  r.launch = c.launch * static_cast<int64_t>(r.kernels);
  r.memory = ByteCount(3 * b * SumBytes(g)) / (c.hbm_bw * c.gather_efficiency) + d.memory;
  r.compute = d.compute;
  net::Fabric f;
  f.intra_bw = c.intra_bw;
  f.inter_bw_per_gpu = c.nic_bw / static_cast<double>(c.gpus_per_node);
  const net::GroupLayout all{.size = c.gpus(), .ranks_per_node = c.gpus_per_node};
  Duration a2a;
  for (double row : g.row_bytes) {  // forward rows and backward gradients, per micro-batch
    const Bytes per_mb = ByteCount(b * row * (1 - k.hit_ratio) / mb);
    a2a += (c.collective_latency + c.collectives->Time(net::Collective::kAllToAll, per_mb, all, f)) *
           static_cast<int64_t>(2 * mb);
  }
  const Duration allreduce = c.collective_latency + c.collectives->Time(net::Collective::kAllReduce,
                                                                        ByteCount(4 * MlpMacs(m)), all, f);
  r.exchanges = 2LL * mb * static_cast<long long>(g.row_bytes.size()) + 1;
  r.comm = a2a + allreduce;
  const Duration embed_memory = r.memory - d.memory;
  return Finish(r, c, a2a + embed_memory, d.compute + d.memory + allreduce, mb);
}

IterationBreakdown PriceParameterServer(const RecModel& m, const RecCluster& c, const Knobs& k) {
  const Groups g = MakeGroups(m, k.packing);
  const DenseWork d = Dense(m, c, g, k.packing);
  const int mb = std::max(1, k.micro_batches);
  const double b = c.batch_per_gpu;
  IterationBreakdown r;
  r.kernels = (static_cast<long long>(g.row_bytes.size()) + d.kernels) * mb;  // one copy-in per variable
  r.launch = c.launch * static_cast<int64_t>(r.kernels);
  r.memory = d.memory;
  r.compute = d.compute;
  // Pull the looked-up rows and the dense weights, push their gradients: through each machine's NIC
  // (shared by its GPUs) and through the servers' NICs (shared by every worker).
  const double per_gpu = 2 * (b * SumBytes(g) * (1 - k.hit_ratio) + 4 * MlpMacs(m));
  const Duration worker = ByteCount(per_gpu * c.gpus_per_node) / c.nic_bw;
  const Duration server = ByteCount(per_gpu * c.gpus()) / (c.nic_bw * static_cast<double>(c.ps_servers));
  const long long variables = static_cast<long long>(g.row_bytes.size()) + 1;
  const long long rounds = (variables + c.ps_servers - 1) / c.ps_servers;  // servers answer in parallel
  r.exchanges = 2 * variables * mb;
  r.comm = std::max(worker, server) + c.rpc * static_cast<int64_t>(2 * rounds * mb);
  return Finish(r, c, r.comm, d.compute + d.memory, mb);
}

}  // namespace dlsim::recsys
