#include "dlsim/gnn/simulate.h"

#include <algorithm>
#include <cmath>

#include "dlsim/core/cancel.h"
#include "dlsim/core/machine_memory.h"
#include "dlsim/core/strings.h"
#include "epoch.h"
#include "memory_split.h"
#include "stage_cost.h"

namespace dlsim::gnn {
namespace {

// The progress callback of a run and where this variant's training nodes start among all the run samples.
struct Progress {
  const ProgressFn& fn;
  size_t base = 0, total = 0;
};

using internal::BatchCounts;
using internal::CoreSplit;
using internal::MachineSpec;

// The graph and split every variant shares.
struct Prepared {
  Graph graph;
  NodeSplit split;
  DegreeStats degrees;
};

// Peak memory of a run, measured (maximum resident set, /usr/bin/time -f %M, R-MAT scales 20-22 with edge
// factors 4, 16 and 64, data/scenarios/gnn_bgl_rmat22.yaml with its scale, edge factor and partitioner
// changed; docs/gnn.md, "Complexity and memory"): 23.6 bytes per generated edge and 32 per node with the hash
// or bgl partitioner, and METIS's own copy of the adjacency on top (131-153 bytes per edge at scales 20-21,
// growing with the graph).
constexpr double kBytesPerEdge = 24, kBytesPerNode = 32, kMetisBytesPerEdge = 160;

double PeakBytes(const GnnOptions& o) {
  const double nodes = o.graph.rmat ? std::ldexp(1.0, o.graph.rmat_options.scale)
                                    : static_cast<double>(o.graph.edges ? o.graph.edges->num_nodes : 0);
  const double edges = o.graph.rmat ? nodes * o.graph.rmat_options.edge_factor
                                    : static_cast<double>(o.graph.edges ? o.graph.edges->src.size() : 0);
  const double per_edge = (o.partitioner == "metis" ? kMetisBytesPerEdge : kBytesPerEdge) +
                          (o.graph.undirected ? 0 : 8);  // a directed graph keeps its CSC too
  return edges * per_edge + nodes * kBytesPerNode;
}

// A run that would not fit this machine's memory is refused before the graph is built.
Status CheckRunMemory(const GnnOptions& o) {
  return CheckFitsMemory("graph", PeakBytes(o),
                         "24 bytes per edge and 32 per node measured, 160 per edge with METIS",
                         "use a smaller scale or edge_factor, or the hash or bgl partitioner");
}

Result<Prepared> Prepare(const GnnOptions& o) {
  DLSIM_RETURN_IF_ERROR(CheckRunMemory(o));
  Prepared p;
  if (o.graph.rmat) {
    DLSIM_ASSIGN_OR_RETURN(EdgeList e, GenerateRmat(o.graph.rmat_options));
    DLSIM_ASSIGN_OR_RETURN(p.graph, BuildGraph(e, {.undirected = o.graph.undirected}));
  } else {
    if (!o.graph.edges) return Error::InvalidArgument("the scenario names no graph");
    DLSIM_ASSIGN_OR_RETURN(p.graph, BuildGraph(*o.graph.edges, {.undirected = o.graph.undirected}));
  }
  DLSIM_ASSIGN_OR_RETURN(p.split, SplitNodes(p.graph.num_nodes(), o.split));
  p.degrees = ComputeDegreeStats(p.graph);
  return p;
}

Result<MachineSpec> ResolveMachine(const GnnOptions& o, const catalog::Catalogs& cat,
                                   const hw::GpuSpec** gpu) {
  DLSIM_ASSIGN_OR_RETURN(const hw::NodeSpec* node, cat.hardware.FindNode(o.hardware.node));
  DLSIM_ASSIGN_OR_RETURN(*gpu, cat.hardware.FindGpu(node->gpu));
  DLSIM_ASSIGN_OR_RETURN(const hw::NetworkSpec* net, cat.hardware.FindNetwork(node->network));
  MachineSpec m;
  m.gpus = o.hardware.gpus_per_machine > 0 ? o.hardware.gpus_per_machine : node->gpus_per_node;
  m.cores = o.hardware.cpu_cores > 0 ? o.hardware.cpu_cores : std::max(1, node->cpu_cores);
  const int switches = node->gpus_per_pcie_switch > 0
                           ? (m.gpus + node->gpus_per_pcie_switch - 1) / node->gpus_per_pcie_switch
                           : m.gpus;
  m.h2d = (*gpu)->PcieBandwidth() * static_cast<double>(std::max(1, switches));
  m.nvlink = node->intra_bandwidth * static_cast<double>(m.gpus);
  m.nic = node->nic_bandwidth * static_cast<double>(std::max(1, node->nics_per_node));
  m.net_latency = net->latency;
  m.host_memory = node->host_memory_bandwidth;
  m.disk = node->disk_bandwidth;
  m.disk_iops = node->disk_read_iops;
  m.hbm = (*gpu)->hbm_capacity;
  m.host_capacity = node->host_memory;
  m.disk_capacity = node->local_disk;
  return m;
}

int64_t NodesIn(double gib, const FeatureSpec& f) {
  return static_cast<int64_t>(std::floor(GiB(gib).ToBytes() / f.PerNode().ToBytes()));
}

// Bad input (an error) and configurations that cannot run (infeasible).
Status CheckCapacities(const GnnOptions& o, const MachineSpec& m, const Graph& g) {
  const int64_t gpu_nodes = NodesIn(o.cache.gpu_gib, o.features) * m.gpus;
  const double features = static_cast<double>(g.num_nodes()) * o.features.PerNode().ToBytes();
  if (gpu_nodes > g.num_nodes())
    return Error::InvalidArgument("cache.gpu_gib: " + FormatNumber(o.cache.gpu_gib) + " GiB per GPU x " +
                                  std::to_string(m.gpus) + " GPUs holds " + std::to_string(gpu_nodes) +
                                  " nodes' features, more than the graph's " + std::to_string(g.num_nodes()) +
                                  " nodes (" + FormatNumber(Bytes(features).ToGiB()) + " GiB in all)");
  if (GiB(o.cache.gpu_gib) > m.hbm * 0.9)
    return Error::Infeasible("a " + FormatNumber(o.cache.gpu_gib) + " GiB GPU cache does not fit in " +
                             FormatNumber(m.hbm.ToGiB()) + " GiB of GPU memory with room for training");
  const double share = o.store == FeatureStore::kPartitioned ? features / o.hardware.machines : features;
  if (o.store != FeatureStore::kDisk &&
      Bytes(share + g.MemoryBytes()) + GiB(o.cache.host_gib) > m.host_capacity)
    return Error::Infeasible("features (" + FormatNumber(Bytes(share).ToGiB()) +
                             " GiB) and the graph do not fit " + FormatNumber(m.host_capacity.ToGiB()) +
                             " GiB of host memory; use store: disk");
  if (o.store == FeatureStore::kDisk && Bytes(features) > m.disk_capacity)
    return Error::Infeasible("features (" + FormatNumber(Bytes(features).ToGB()) +
                             " GB) exceed the local disk");
  const double budget = o.disk.memory_gib + o.topology.cache_gib;
  if (GiB(budget) > m.host_capacity)
    return Error::Infeasible("disk.memory_gib + topology.cache_gib = " + FormatNumber(budget) +
                             " GiB exceed the " + FormatNumber(m.host_capacity.ToGiB()) +
                             " GiB of host memory");
  return Status::Ok();
}

// Options that contradict each other (bad input, not infeasibility).
Status CheckStorageOptions(const GnnOptions& o) {
  const bool disk = internal::UsesDisk(o);
  if (o.topology.store == TopologyStore::kDisk && o.hardware.machines > 1)
    return Error::InvalidArgument(
        "topology.store: disk models one machine (CaliEX, Ginex, PyG on SSD); "
        "hardware.machines is " +
        std::to_string(o.hardware.machines));
  if (!disk && (o.disk.page_cache || o.disk.memory_gib > 0))
    return Error::InvalidArgument(
        "disk.page_cache / disk.memory_gib need features (store: disk) or "
        "topology (topology.store: disk) on the disk");
  if (o.topology.hops < 1 || o.topology.hops > 2)
    return Error::InvalidArgument("topology.hops: expected 1 or 2, found " + std::to_string(o.topology.hops));
  return Status::Ok();
}

GnnResult Describe(const GnnOptions& o, const Prepared& p, const MachineSpec& m) {
  GnnResult r;
  r.graph_name = o.graph.name;
  r.nodes = p.graph.num_nodes();
  r.edges = p.graph.num_edges();
  r.degrees = p.degrees;
  r.graph_bytes = p.graph.MemoryBytes();
  r.train_nodes = static_cast<int64_t>(p.split.train.size());
  r.machines = o.hardware.machines;
  r.gpus_per_machine = m.gpus;
  r.sampler = o.sampler;
  r.order = o.order;
  r.cache_policy = o.disk.page_cache ? "page-cache" : o.cache.policy;
  r.partitioner = o.hardware.machines > 1 ? o.partitioner : "none";
  r.topology_store = std::string(TopologyStoreName(o.topology.store));
  r.topology_cache = o.topology.cache;
  return r;
}

// One machine's epoch, timed.
struct MachineRun {
  std::vector<BatchCounts> batches;
  StageTimes stages;
  PipelineTiming timing;
  CoreSplit split;
};

// BGL's resource isolation: the sampling/gathering core split with the shortest epoch.
MachineRun TimeMachine(std::vector<BatchCounts> batches, const std::vector<Duration>& compute,
                       const MachineSpec& m, const GnnOptions& o) {
  MachineRun run;
  run.batches = std::move(batches);
  const bool isolate = o.pipeline.isolation && m.cores >= 2;
  run.split = {m.cores, m.cores};
  if (!isolate) {
    run.stages = internal::MachineStageTimes(run.batches, compute, m, o, false, run.split);
    run.timing = RunPipeline(run.stages, o.pipeline.pipelined);
    return run;
  }
  bool first = true;
  for (int s = 1; s < m.cores; ++s) {
    const CoreSplit split{s, m.cores - s};
    StageTimes st = internal::MachineStageTimes(run.batches, compute, m, o, true, split);
    PipelineTiming t = RunPipeline(st, o.pipeline.pipelined);
    if (!first && t.makespan >= run.timing.makespan) continue;
    first = false;
    run.split = split;
    run.stages = std::move(st);
    run.timing = std::move(t);
  }
  return run;
}

// Epoch totals over every machine's batches.
struct Totals {
  double edges = 0, reads = 0, host_cache_hits = 0, remote_requests = 0;
  double adjacency_reads = 0, topology_hits = 0, disk_pages = 0, topology_pages = 0;
};

void AddCounts(const std::vector<BatchCounts>& batches, const FeatureSpec& f, GnnResult& r, Totals& t) {
  const double row = f.PerNode().ToBytes();
  for (const BatchCounts& c : batches) {
    ++r.batches;
    t.edges += static_cast<double>(c.edges);
    t.reads += static_cast<double>(c.Reads());
    t.host_cache_hits += static_cast<double>(c.host_cache_hits);
    t.remote_requests += static_cast<double>(c.remote_requests);
    t.adjacency_reads += static_cast<double>(c.adjacency_reads);
    t.topology_hits += static_cast<double>(c.topology_hits);
    t.disk_pages += static_cast<double>(c.disk_pages);
    t.topology_pages += static_cast<double>(c.topology_pages);
    r.bytes.gpu += Bytes(static_cast<double>(c.gpu_local) * row);
    r.bytes.nvlink += Bytes(static_cast<double>(c.gpu_peer) * row);
    r.bytes.host += Bytes(static_cast<double>(c.host) * row);
    r.bytes.remote += Bytes(static_cast<double>(c.remote) * row);
    r.bytes.disk += Bytes(static_cast<double>(c.disk) * row);
  }
}

void ReportStages(const MachineRun& run, const MachineSpec& m, GnnResult& r) {
  const size_t n = std::max<size_t>(1, run.batches.size());
  for (size_t s = 0; s < run.stages.size(); ++s) {
    StageResult st{run.stages[s].name, run.timing.busy[s],
                   run.timing.busy[s] * (1.0 / static_cast<double>(n)), run.timing.utilisation[s], 0};
    if (st.name == "sample") st.cores = run.split.sample;
    if (st.name == "gather") st.cores = run.split.gather;
    if (st.name == "sample+gather") st.cores = m.cores;
    r.stages.push_back(st);
  }
  r.bottleneck = run.stages[run.timing.bottleneck].name;
  r.epoch = run.timing.makespan;
  r.fill = run.timing.fill;
}

void TraceMachine(const MachineRun& run, const GnnOptions& o, report::Sink* sink) {
  if (!sink) return;
  sink->OnProcessName({0, "slowest machine", 0});
  RunPipeline(run.stages, o.pipeline.pipelined, sink, 0);
}

void Finalise(GnnResult& r, const Totals& t, const GnnOptions& o) {
  const auto batches = static_cast<double>(std::max<int64_t>(1, r.batches));
  const double reads = t.reads;
  const double row = o.features.PerNode().ToBytes();
  r.sampled_edges_per_batch = t.edges / batches;
  r.input_nodes_per_batch = reads / batches;
  r.gpu_hit_ratio = reads > 0 ? (r.bytes.gpu + r.bytes.nvlink).ToBytes() / row / reads : 0;
  const double beyond_gpu = reads - (r.bytes.gpu + r.bytes.nvlink).ToBytes() / row;
  const double own_host = r.bytes.host.ToBytes() / row - t.host_cache_hits;
  const double at_host_cache = beyond_gpu - own_host;
  r.host_hit_ratio = at_host_cache > 0 ? t.host_cache_hits / at_host_cache : 0;
  r.remote_requests_per_batch = t.remote_requests / batches;
  r.topology_hit_ratio = t.adjacency_reads > 0 ? t.topology_hits / t.adjacency_reads : 0;
  r.disk_pages_per_batch = t.disk_pages / batches;
  r.topology_pages_per_batch = t.topology_pages / batches;
}

// node -> machine (all 0 on one machine); fills the partition statistics.
Result<std::vector<int32_t>> PartitionFor(const GnnOptions& o, const Prepared& p,
                                          const internal::Registries& reg, GnnResult& r) {
  if (o.hardware.machines <= 1) return std::vector<int32_t>(static_cast<size_t>(p.graph.num_nodes()), 0);
  if (o.hardware.machines > p.graph.num_nodes())
    return Error::InvalidArgument("hardware.machines: " + std::to_string(o.hardware.machines) +
                                  " machines (partitions) for a graph of " +
                                  std::to_string(p.graph.num_nodes()) +
                                  " nodes; allowed: at most one machine per node");
  DLSIM_ASSIGN_OR_RETURN(auto partitioner, reg.partitioners.Create(o.partitioner));
  PartitionOptions po = o.partition_options;
  po.parts = o.hardware.machines;
  DLSIM_ASSIGN_OR_RETURN(std::vector<int32_t> part, partitioner->Partition(p.graph, p.split.train, po));
  r.partition = EvaluatePartition(p.graph, part, po.parts, p.split.train);
  return part;
}

// Every machine's epoch, timed; the result takes the slowest machine's stages.
Status RunMachines(const internal::EpochSetup& setup, const internal::Registries& reg, const MachineSpec& m,
                   const hw::GpuSpec& gpu, const catalog::Catalogs& cat, GnnResult& r, report::Sink* sink,
                   const Progress& progress) {
  const GnnOptions& o = setup.options;
  const auto model = cost::MakeRooflineComputeModel(gpu, cat.compute);
  Totals totals;
  MachineRun slowest;
  size_t sampled = 0;  // training nodes of the machines before this one
  for (int machine = 0; machine < o.hardware.machines; ++machine) {
    internal::EpochSetup ms = setup;
    size_t done_here = 0;
    if (progress.fn)
      ms.on_seeds = [&](size_t done) {
        done_here = done;
        progress.fn(progress.base + sampled + done, progress.total);
      };
    DLSIM_ASSIGN_OR_RETURN(auto batches, internal::RunMachineEpoch(ms, reg, machine));
    sampled += done_here;
    AddCounts(batches, o.features, r, totals);
    std::vector<Duration> compute;
    for (const BatchCounts& c : batches)
      compute.push_back(internal::BatchComputeTime(c, o.model, o.features, *model));
    MachineRun run = TimeMachine(std::move(batches), compute, m, o);
    if (machine == 0 || run.timing.makespan > slowest.timing.makespan) slowest = std::move(run);
  }
  ReportStages(slowest, m, r);
  TraceMachine(slowest, o, sink);
  Finalise(r, totals, o);
  return Status::Ok();
}

// What the epoch's caches borrow: the pre-sampled reads and the topology caches per machine.
struct CacheState {
  internal::Presample presample;
  std::vector<std::unique_ptr<TopologyCache>> topology;
};

bool AutoSplit(const GnnOptions& o) {
  return o.disk.memory_gib > 0 && !o.disk.page_cache && o.disk.topology_share < 0;
}

// disk.memory_gib split between the topology cache and the host feature cache (CaliEX's search when
// the share is automatic); the page cache takes the whole budget.
void SplitBudget(const Prepared& p, const CacheState& cs, GnnOptions& o, GnnResult& r) {
  if (o.disk.memory_gib <= 0 || o.disk.page_cache) return;
  const double budget = GiB(o.disk.memory_gib).ToBytes();
  double share = o.disk.topology_share;
  if (share < 0) {
    const internal::SplitPlan plan =
        internal::ChooseTopologyShare(p.graph, cs.presample, budget, o.features.PerNode().ToBytes());
    share = plan.share;
    for (const internal::SplitPoint& pt : plan.curve)
      r.split_curve.emplace_back(pt.share, pt.predicted_pages);
  }
  r.topology_share = share;
  o.topology.cache_gib = o.disk.memory_gib * share;
  o.cache.host_gib = o.disk.memory_gib * (1 - share);
}

Status BuildTopologyCaches(const Prepared& p, const internal::Registries& reg, const GnnOptions& o,
                           std::span<const int32_t> part, CacheState& cs, GnnResult& r) {
  const bool beyond_memory = o.topology.store == TopologyStore::kDisk || o.hardware.machines > 1;
  if (o.topology.cache == "none" || !beyond_memory) return Status::Ok();
  for (int machine = 0; machine < o.hardware.machines; ++machine) {
    TopologyCacheContext c{p.graph,
                           GiB(o.topology.cache_gib).ToBytes(),
                           o.topology.tau,
                           o.topology.hops,
                           cs.presample.adjacency,
                           {},
                           machine};
    if (o.hardware.machines > 1) c.part = part;
    DLSIM_ASSIGN_OR_RETURN(auto cache, reg.topology_caches.Create(o.topology.cache, c));
    r.topology_cache_lists = std::max(r.topology_cache_lists, cache->lists());
    r.topology_cache_bytes = std::max(r.topology_cache_bytes, cache->bytes());
    cs.topology.push_back(std::move(cache));
  }
  return Status::Ok();
}

// Pre-sampling (when a policy or the split search needs it), the budget split, the cache sizes
// (never more entries than the data has) and the topology caches.
Status PrepareCaches(const Prepared& p, const internal::Registries& reg, GnnOptions& o,
                     internal::EpochSetup& setup, CacheState& cs, GnnResult& r) {
  if (NeedsFrequency(o.cache.policy) || TopologyNeedsReads(o.topology.cache) || AutoSplit(o)) {
    DLSIM_ASSIGN_OR_RETURN(cs.presample, internal::PresampleEpoch(setup, reg));
    setup.frequency = cs.presample.features;
  }
  SplitBudget(p, cs, o, r);
  const int64_t n = p.graph.num_nodes();
  setup.host_cache_nodes = std::min(NodesIn(o.cache.host_gib, o.features), n);
  if (o.disk.page_cache) {
    const double gib = o.disk.memory_gib > 0 ? o.disk.memory_gib : o.cache.host_gib;
    setup.page_cache_pages = static_cast<int64_t>(std::floor(GiB(gib).ToBytes() / 4096));
    setup.host_cache_nodes = 0;
  }
  r.gpu_cache_nodes = setup.gpu_cache_nodes;
  r.host_cache_nodes = setup.host_cache_nodes;
  return BuildTopologyCaches(p, reg, o, setup.part, cs, r);
}

// Simulates every machine; the epoch is the slowest one's.
Result<GnnResult> RunVariant(const GnnOptions& base, const Prepared& p, const catalog::Catalogs& cat,
                             const internal::Registries& reg, report::Sink* sink, const Progress& progress) {
  DLSIM_RETURN_IF_ERROR(CheckSamplerOptions(base.sampler_options));
  DLSIM_RETURN_IF_ERROR(CheckStorageOptions(base));
  const hw::GpuSpec* gpu = nullptr;
  DLSIM_ASSIGN_OR_RETURN(MachineSpec m, ResolveMachine(base, cat, &gpu));
  GnnResult r = Describe(base, p, m);
  if (Status s = CheckCapacities(base, m, p.graph); !s.ok()) {
    if (s.error().code != ErrorCode::kInfeasible) return s.error();
    r.feasible = false;
    r.reason = s.error().message;
    return r;
  }
  DLSIM_ASSIGN_OR_RETURN(const std::vector<int32_t> part, PartitionFor(base, p, reg, r));
  GnnOptions o = base;  // with the memory budget resolved
  internal::EpochSetup setup{
      p.graph, p.split.train, part, o, m.gpus, NodesIn(o.cache.gpu_gib, o.features) * m.gpus, 0, {}, {}, 0};
  CacheState cs;
  DLSIM_RETURN_IF_ERROR(PrepareCaches(p, reg, o, setup, cs, r));
  setup.topology = cs.topology;
  DLSIM_RETURN_IF_ERROR(RunMachines(setup, reg, m, *gpu, cat, r, sink, progress));
  return r;
}

GnnOptions Apply(const GnnOptions& base, const GnnVariant& v) {
  GnnOptions o = base;
  if (!v.order.empty()) o.order = v.order;
  if (!v.cache_policy.empty()) o.cache.policy = v.cache_policy;
  if (!v.partitioner.empty()) o.partitioner = v.partitioner;
  if (v.isolation >= 0) o.pipeline.isolation = v.isolation == 1;
  if (!v.topology_cache.empty()) o.topology.cache = v.topology_cache;
  if (v.pipelined >= 0) o.pipeline.pipelined = v.pipelined == 1;
  if (v.page_cache >= 0) o.disk.page_cache = v.page_cache == 1;
  if (v.topology_share > -2) o.disk.topology_share = v.topology_share;
  if (v.superbatch > 0) o.disk.superbatch = v.superbatch;
  o.name = v.name;
  return o;
}

}  // namespace

Result<GnnResult> Simulate(const GnnOptions& options, const catalog::Catalogs& catalogs, report::Sink* sink,
                           const ProgressFn& progress) {
  DLSIM_RETURN_IF_ERROR(CheckSamplerOptions(options.sampler_options));
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(options));
  if (CancelRequested()) return CancelledError();
  const internal::Registries reg;
  return RunVariant(options, p, catalogs, reg, sink, {progress, 0, p.split.train.size()});
}

Result<std::vector<GnnResult>> Compare(const GnnOptions& base, const std::vector<GnnVariant>& variants,
                                       const catalog::Catalogs& catalogs, const ProgressFn& progress) {
  DLSIM_RETURN_IF_ERROR(CheckSamplerOptions(base.sampler_options));
  for (const GnnVariant& v : variants) DLSIM_RETURN_IF_ERROR(CheckRunMemory(Apply(base, v)));  // METIS, say
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(base));
  const internal::Registries reg;
  std::vector<GnnResult> out;
  const size_t nodes = p.split.train.size();
  for (const GnnVariant& v : variants) {
    if (CancelRequested()) return CancelledError();
    const Progress at{progress, out.size() * nodes, variants.size() * nodes};
    DLSIM_ASSIGN_OR_RETURN(GnnResult r, RunVariant(Apply(base, v), p, catalogs, reg, nullptr, at));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<GnnVariant> DefaultVariants() {
  return {PolicyVariant("dgl-like", "shuffle", "none", "hash", 0),
          PolicyVariant("pagraph", "shuffle", "degree", "hash", 0),
          PolicyVariant("lru", "shuffle", "lru", "hash", 0), PolicyVariant("bgl", "bfs", "fifo", "bgl", 1)};
}

}  // namespace dlsim::gnn
