#include "stage_cost.h"

#include <algorithm>
#include <cmath>

namespace dlsim::gnn::internal {
namespace {

constexpr double kPageBytes = 4096;
constexpr double kIdBytes = 4;  // a node id in a sampled block or a remote reply

// GEMMs of one layer forward: the weights applied to the dst rows (SAGE: [self | mean] concat).
Duration LayerCompute(int64_t n_dst, int64_t n_src, int64_t edges, int in, int out, const ModelOptions& m,
                      const cost::ComputeModel& model) {
  const double b = hw::DTypeBytes(m.dtype);
  const auto e = static_cast<double>(edges);
  const auto agg_bytes = [&](double width) {
    return Bytes((e * width + static_cast<double>(n_dst) * width) * b + e * kIdBytes);
  };
  Duration t;
  switch (m.layer) {
    case GnnLayer::kSage:
      t += model.MemoryBound(agg_bytes(in), FlopCount(e * in));
      t += model.Gemm({.m = n_dst, .n = out, .k = 2 * in}, m.dtype);
      break;
    case GnnLayer::kGcn:
      t += model.MemoryBound(agg_bytes(in), FlopCount(e * in));
      t += model.Gemm({.m = n_dst, .n = out, .k = in}, m.dtype);
      break;
    case GnnLayer::kGat: {
      const int width = m.heads * out;
      t += model.Gemm({.m = n_src, .n = width, .k = in}, m.dtype);
      t += model.MemoryBound(Bytes(e * m.heads * 3 * b), FlopCount(e * m.heads * 4));  // edge scores, softmax
      t += model.MemoryBound(agg_bytes(width), FlopCount(e * width));
      break;
    }
  }
  return t;
}

Duration Transfer(double bytes, BytesPerSecond bw) {
  if (bytes <= 0) return Duration::Zero();
  return Bytes(bytes) / bw;
}

struct BatchBytes {
  double host, remote, peer, structure;
};

BatchBytes BytesOf(const BatchCounts& c, const FeatureSpec& f) {
  const double row = f.PerNode().ToBytes();
  return {static_cast<double>(c.host) * row, static_cast<double>(c.remote) * row,
          static_cast<double>(c.gpu_peer) * row, static_cast<double>(c.edges) * 2 * kIdBytes};
}

// The NVMe queue: every 4 KiB page the batch reads (adjacency lists and features), at the disk's
// bandwidth or its random-read IOPS, whichever is slower.
Duration DiskTime(const BatchCounts& c, const MachineSpec& m) {
  const auto pages = static_cast<double>(c.disk_pages);
  Duration t = Transfer(pages * kPageBytes, m.disk);
  if (m.disk_iops > 0) t = std::max(t, Seconds(pages / m.disk_iops));
  return t;
}

Duration SampleTime(const BatchCounts& c, const MachineSpec& m, const GnnOptions& o, int cores) {
  const Duration cpu = Seconds(static_cast<double>(c.edges) * o.pipeline.sample_ns_per_edge * 1e-9 / cores);
  const Duration rpc =
      m.net_latency * (int64_t{2} * c.round_trips) + Transfer(c.remote_edges * kIdBytes, m.nic);
  return cpu + rpc;
}

Duration GatherTime(const BatchCounts& c, const MachineSpec& m, const GnnOptions& o, int cores) {
  const BatchBytes b = BytesOf(c, o.features);
  const double row = o.features.PerNode().ToBytes();
  const BytesPerSecond copy_rate = std::min(GBps(o.pipeline.gather_gbps_per_core * cores), m.host_memory);
  const Duration copy = Transfer(static_cast<double>(c.host + c.remote + c.disk) * row, copy_rate);
  const Duration net =
      Transfer(b.remote, m.nic) + (c.remote > 0 ? m.net_latency * int64_t{2} : Duration::Zero());
  return std::max(copy, net);
}

Duration CopyTime(const BatchCounts& c, const MachineSpec& m, const FeatureSpec& f) {
  const BatchBytes b = BytesOf(c, f);
  const double row = f.PerNode().ToBytes();
  const Duration h2d = Transfer(static_cast<double>(c.host + c.remote + c.disk) * row + b.structure, m.h2d);
  return std::max(h2d, Transfer(b.peer, m.nvlink));
}

}  // namespace

bool UsesDisk(const GnnOptions& o) {
  return o.store == FeatureStore::kDisk || o.topology.store == TopologyStore::kDisk;
}

Duration BatchComputeTime(const BatchCounts& c, const ModelOptions& m, const FeatureSpec& f,
                          const cost::ComputeModel& model) {
  const size_t hops = c.hop_edges.size();
  Duration forward;
  for (size_t k = 0; k < hops; ++k) {  // layer k reads hop hops-1-k's block
    const size_t h = hops - 1 - k;
    const int in = k == 0 ? f.dim : m.hidden;
    const int out = k + 1 == hops ? m.classes : m.hidden;
    forward += LayerCompute(c.frontier[h], c.frontier[h + 1], c.hop_edges[h], in, out, m, model);
  }
  // Backward costs twice the forward (input and weight gradients; the scatter of the aggregation).
  return forward * int64_t{3};
}

StageTimes MachineStageTimes(const std::vector<BatchCounts>& batches, const std::vector<Duration>& compute,
                             const MachineSpec& m, const GnnOptions& o, bool isolation, CoreSplit split) {
  StageTimes st;
  const bool disk = UsesDisk(o);
  if (isolation) {
    st = {{"sample", {}}};
    if (disk) st.push_back({"disk", {}});
    st.push_back({"gather", {}});
  } else {
    st = {{"sample+gather", {}}};
    if (disk) st.push_back({"disk", {}});
  }
  st.push_back({"copy", {}});
  st.push_back({"compute", {}});
  for (size_t b = 0; b < batches.size(); ++b) {
    const BatchCounts& c = batches[b];
    size_t s = 0;
    if (isolation) {
      st[s++].per_batch.push_back(SampleTime(c, m, o, split.sample));
      if (disk) st[s++].per_batch.push_back(DiskTime(c, m));
      st[s++].per_batch.push_back(GatherTime(c, m, o, split.gather));
    } else {
      st[s++].per_batch.push_back(SampleTime(c, m, o, m.cores) + GatherTime(c, m, o, m.cores));
      if (disk) st[s++].per_batch.push_back(DiskTime(c, m));
    }
    st[s++].per_batch.push_back(CopyTime(c, m, o.features));
    st[s++].per_batch.push_back(compute[b] * (1.0 / m.gpus));
  }
  return st;
}

}  // namespace dlsim::gnn::internal
