#include "dlsim/io/gnn_scenario.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "dlsim/core/strings.h"
#include "dlsim/gnn/feature_cache.h"
#include "dlsim/gnn/partition.h"
#include "dlsim/gnn/sampler.h"
#include "dlsim/gnn/seed_order.h"
#include "dlsim/gnn/topology_cache.h"
#include "dlsim/io/edge_list.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/shipped_graphs.h"
#include "dlsim/io/yaml_reader.h"
#include "gnn_graph_checks.h"

namespace dlsim::io {
namespace {

using gnn::GnnOptions;

// Ranges of the gnn keys (generous multiples of real values; see docs/gnn.md).
const Range kScale = Range::Between(1, 30);
const Range kEdgeFactor = Range::Between(1, 1024);
const Range kProbability = Range::Between(0, 1);
const Range kFeatureDim = Range::Between(1, 1 << 16);
const Range kFraction = Range::Between(0, 1);
const Range kFanout = Range::Between(1, 1 << 20);
const Range kWidth = Range::Between(1, 1 << 16);
const Range kBatch = Range::Between(1, 1 << 24);
const Range kMachines = Range::Between(1, 4096);
// A fixed node count: every node costs memory whether an edge names it or not (CSR offsets, the split,
// partitions, caches); 2^27 covers ogbn-papers100M's 111M nodes.
const Range kNumNodes = Range::ZeroOr(1, 1 << 27).WithNote("0: the ids in the file, relabelled densely");
const Range kCacheGib = Range::Between(0, 1 << 20);
const Range kNsPerEdge = Range::Between(0.001, 1e6);
const Range kCopyRate = Range::Between(0.001, 1e4);

// Picks one of `allowed` at `key` into `out` (unknown: an error listing them, with a suggestion).
void ReadName(const MapReader& m, std::string_view key, const std::vector<std::string>& allowed,
              std::string& out) {
  std::optional<std::string> v = m.Find<std::string>(key);
  if (!v) return;
  if (std::find(allowed.begin(), allowed.end(), *v) != allowed.end()) {
    out = *v;
    return;
  }
  std::string msg = "unknown name '" + *v + "'";
  if (auto c = ClosestMatch(*v, allowed)) msg += " (did you mean '" + *c + "'?)";
  m.AddError(key, msg + "; allowed: " + Join(allowed, ", "));
}

// `topology_share`: a fraction of the memory budget, or `auto` (-1: CaliEX's search).
double ReadShare(const MapReader& m, double def) {
  if (auto share = m.Find<std::string>("topology_share"); share && *share == "auto") return -1;
  return m.Get<double>("topology_share", def, kFraction);
}

hw::DType ReadDType(const MapReader& m, hw::DType def) {
  return m.GetEnum("dtype", def,
                   {{"fp32", hw::DType::kFp32},
                    {"fp16", hw::DType::kFp16},
                    {"bf16", hw::DType::kBf16},
                    {"fp8", hw::DType::kFp8},
                    {"int8", hw::DType::kInt8}});
}

void ReadEdgeFile(const MapReader& g, const std::string& base_dir, gnn::GraphSource& src) {
  const std::string file = g.Get<std::string>("file", "");
  EdgeListOptions eo;
  eo.format = g.GetEnum("format", EdgeListFormat::kAuto,
                        {{"auto", EdgeListFormat::kAuto},
                         {"csv", EdgeListFormat::kCsv},
                         {"tsv", EdgeListFormat::kTsv},
                         {"snap", EdgeListFormat::kSnap},
                         {"adjacency", EdgeListFormat::kAdjacency}});
  eo.skip_lines = g.Get<int>("skip_lines", 0, Range::Between(0, 1000));
  if (eo.format == EdgeListFormat::kAdjacency && eo.skip_lines > 0)
    return g.AddError("skip_lines",
                      "an adjacency list has no lines to skip (its first line is the node count)");
  eo.num_nodes = g.Get<int64_t>("num_nodes", 0, kNumNodes);
  const std::string path = ResolvePath(base_dir, file);
  auto edges = ReadEdgeListFile(path, eo);
  if (!edges.ok()) return g.AddError("file", edges.error().message);
  src.name = std::filesystem::path(file).filename().string();
  src.edges = std::make_shared<const gnn::EdgeList>(std::move(edges).value());
}

// `shipped: NAME`: one of the real graphs compiled into dlsim (io/shipped_graphs.h).
void ReadShipped(const MapReader& g, gnn::GraphSource& src) {
  const std::string name = g.Get<std::string>("shipped", "");
  auto edges = ReadShippedGraph(name);
  if (!edges.ok()) return g.AddError("shipped", edges.error().message);
  src.rmat = false;
  src.shipped = true;
  src.name = name;
  src.edges = std::make_shared<const gnn::EdgeList>(std::move(edges).value());
}

void ReadGraph(const MapReader& g, const std::string& base_dir, gnn::GraphSource& src) {
  src.undirected = !g.Get<bool>("directed", false);
  g.Allow({"file", "format", "skip_lines", "num_nodes", "shipped"});
  MapReader r = g.Section("rmat");
  const int sources = int{g.Has("file")} + int{g.Has("shipped")} + int{r.present()};
  if (sources != 1) {
    g.AddError(g.Has("file") ? "file" : (g.Has("shipped") ? "shipped" : "rmat"),
               "give exactly one of 'file', 'shipped' and 'rmat'");
    return;
  }
  if (g.Has("shipped")) return ReadShipped(g, src);
  if (g.Has("file")) {
    src.rmat = false;
    ReadEdgeFile(g, base_dir, src);
    return;
  }
  gnn::RmatOptions& o = src.rmat_options;
  o.scale = r.Get<int>("scale", o.scale, kScale);
  o.edge_factor = r.Get<int>("edge_factor", o.edge_factor, kEdgeFactor);
  o.a = r.Get<double>("a", o.a, kProbability);
  o.b = r.Get<double>("b", o.b, kProbability);
  o.c = r.Get<double>("c", o.c, kProbability);
  o.seed = static_cast<uint64_t>(r.Get<int64_t>("seed", static_cast<int64_t>(o.seed), limits::kSeed));
  if (o.a + o.b + o.c > 1 + 1e-12) r.AddError("c", "a + b + c must be at most 1 (d = 1 - a - b - c)");
  r.Finish();
  src.rmat = true;
  src.name = "rmat-" + std::to_string(o.scale);
}

void ReadModel(const MapReader& m, gnn::ModelOptions& o) {
  o.layer =
      m.GetEnum("layer", o.layer,
                {{"sage", gnn::GnnLayer::kSage}, {"gcn", gnn::GnnLayer::kGcn}, {"gat", gnn::GnnLayer::kGat}});
  o.hidden = m.Get<int>("hidden", o.hidden, kWidth);
  o.classes = m.Get<int>("classes", o.classes, kWidth);
  o.heads = m.Get<int>("heads", o.heads, Range::Between(1, 256));
  o.dtype = ReadDType(m, o.dtype);
  m.Finish();
}

void ReadSampler(const MapReader& s, const GnnNames& names, GnnOptions& o) {
  ReadName(s, "name", names.samplers, o.sampler);
  if (auto f = s.FindList<int>("fanouts", kFanout)) {
    if (f->empty()) s.AddError("fanouts", "expected at least one fanout (one per hop)");
    if (!f->empty()) o.sampler_options.fanouts = *f;
  }
  // Random walks cost walks x walk_length steps per frontier node per hop: bounded so that one
  // batch stays seconds, not days (PinSAGE: hundreds of short walks).
  o.sampler_options.walks = s.Get<int>("walks", o.sampler_options.walks, Range::Between(1, 1024));
  o.sampler_options.walk_length =
      s.Get<int>("walk_length", o.sampler_options.walk_length, Range::Between(1, 16));
  if (o.sampler_options.walks * o.sampler_options.walk_length > 4096)
    s.AddError("walk_length", "walks x walk_length is " +
                                  std::to_string(o.sampler_options.walks * o.sampler_options.walk_length) +
                                  "; allowed: at most 4096 steps per node");
  s.Finish();
}

void ReadBatch(const MapReader& b, const GnnNames& names, GnnOptions& o) {
  o.batch_size = b.Get<int>("size", o.batch_size, kBatch);
  ReadName(b, "order", names.orders, o.order);
  o.order_options.sequences = b.Get<int>("sequences", o.order_options.sequences, Range::Between(1, 1 << 16));
  o.order_options.batch_size = o.batch_size;
  b.Finish();
}

void ReadHardware(const MapReader& h, const hw::Catalog& hardware, GnnOptions& o) {
  if (auto node = h.Find<std::string>("node")) {
    if (auto found = hardware.FindNode(*node); found.ok()) {
      o.hardware.node = (*found)->name;
    } else {
      h.AddError("node", found.error().message);
    }
  }
  o.hardware.machines = h.Get<int>("machines", o.hardware.machines, kMachines);
  o.hardware.gpus_per_machine =
      h.Get<int>("gpus_per_machine", o.hardware.gpus_per_machine, Range::Between(0, 1024));
  o.hardware.cpu_cores = h.Get<int>("cpu_cores", o.hardware.cpu_cores, limits::kCount);
  h.Finish();
}

void ReadPartitionAndCache(const MapReader& g, const GnnNames& names, GnnOptions& o) {
  MapReader p = g.Section("partition");
  ReadName(p, "name", names.partitioners, o.partitioner);
  o.partition_options.blocks_per_part =
      p.Get<int>("blocks_per_part", o.partition_options.blocks_per_part, Range::Between(1, 1 << 16));
  o.partition_options.slack = p.Get<double>("slack", o.partition_options.slack, Range::Between(0, 10));
  p.Finish();
  o.store = g.GetEnum("store", o.store,
                      {{"host", gnn::FeatureStore::kHost},
                       {"partitioned", gnn::FeatureStore::kPartitioned},
                       {"disk", gnn::FeatureStore::kDisk}});
  MapReader c = g.Section("cache");
  ReadName(c, "policy", names.caches, o.cache.policy);
  o.cache.gpu_gib = c.Get<double>("gpu_gib", o.cache.gpu_gib, kCacheGib);
  o.cache.host_gib = c.Get<double>("host_gib", o.cache.host_gib, kCacheGib);
  c.Finish();
}

void ReadPipeline(const MapReader& p, gnn::PipelineOptions& o) {
  o.pipelined = p.Get<bool>("pipelined", o.pipelined);
  o.isolation = p.Get<bool>("isolation", o.isolation);
  o.sample_ns_per_edge = p.Get<double>("sample_ns_per_edge", o.sample_ns_per_edge, kNsPerEdge);
  o.gather_gbps_per_core = p.Get<double>("gather_gb_per_s_per_core", o.gather_gbps_per_core, kCopyRate);
  p.Finish();
}

// `compare:` replaces the default set: an empty list would compare nothing, and two variants of one
// name could not be told apart in the table.
std::vector<gnn::GnnVariant> ReadCompare(const MapReader& g, const GnnNames& names) {
  std::vector<gnn::GnnVariant> out;
  const std::vector<MapReader> list = g.SectionList("compare");
  if (g.Has("compare") && list.empty())
    g.AddError("compare",
               "the list is empty; give at least one variant, or leave compare out for the default set");
  for (const MapReader& v : list) {
    gnn::GnnVariant var;
    var.name = v.Get<std::string>("name", "variant " + std::to_string(out.size() + 1));
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].name == var.name)
        v.AddError("name", "variant '" + var.name + "' is already the name of variant " +
                               std::to_string(i + 1) + "; each variant needs its own name");
    ReadName(v, "order", names.orders, var.order);
    ReadName(v, "cache", names.caches, var.cache_policy);
    ReadName(v, "partition", names.partitioners, var.partitioner);
    if (auto iso = v.Find<bool>("isolation")) var.isolation = *iso ? 1 : 0;
    ReadName(v, "topology_cache", names.topology_caches, var.topology_cache);
    if (auto pl = v.Find<bool>("pipelined")) var.pipelined = *pl ? 1 : 0;
    if (auto pc = v.Find<bool>("page_cache")) var.page_cache = *pc ? 1 : 0;
    var.topology_share = ReadShare(v, var.topology_share);
    var.superbatch = v.Get<int>("superbatch", var.superbatch, Range::Between(1, 4096));
    v.Finish();
    out.push_back(std::move(var));
  }
  return out;
}

void ReadTopologyAndDisk(const MapReader& g, const GnnNames& names, GnnOptions& o) {
  MapReader t = g.Section("topology");
  o.topology.store =
      t.GetEnum("store", o.topology.store,
                {{"memory", gnn::TopologyStore::kMemory}, {"disk", gnn::TopologyStore::kDisk}});
  ReadName(t, "cache", names.topology_caches, o.topology.cache);
  o.topology.cache_gib = t.Get<double>("cache_gib", o.topology.cache_gib, kCacheGib);
  o.topology.tau = t.Get<double>("tau", o.topology.tau, Range::Between(0, 1e12));
  o.topology.hops = t.Get<int>("hops", o.topology.hops, Range::Between(1, 2));
  t.Finish();
  MapReader d = g.Section("disk");
  o.disk.page_cache = d.Get<bool>("page_cache", o.disk.page_cache);
  o.disk.memory_gib = d.Get<double>("memory_gib", o.disk.memory_gib, kCacheGib);
  o.disk.topology_share = ReadShare(d, o.disk.topology_share);
  o.disk.superbatch = d.Get<int>("superbatch", o.disk.superbatch, Range::Between(1, 4096));
  d.Finish();
}

void ReadGnn(const MapReader& g, const hw::Catalog& hardware, const GnnNames& names,
             const std::string& base_dir, GnnScenario& sc) {
  GnnOptions& o = sc.options;
  MapReader graph = g.Section("graph");
  if (!graph.present()) g.AddError("graph", "missing required key 'graph' ({rmat: {scale: S}} or {file: F})");
  if (graph.present()) ReadGraph(graph, base_dir, o.graph);
  graph.Finish();
  MapReader f = g.Section("features");
  o.features.dim = f.Get<int>("dim", o.features.dim, kFeatureDim);
  o.features.dtype = ReadDType(f, o.features.dtype);
  f.Finish();
  MapReader s = g.Section("split");
  o.split.train = s.Get<double>("train", o.split.train, kFraction);
  o.split.val = s.Get<double>("val", o.split.val, kFraction);
  o.split.test = s.Get<double>("test", o.split.test, kFraction);
  o.split.seed =
      static_cast<uint64_t>(s.Get<int64_t>("seed", static_cast<int64_t>(o.split.seed), limits::kSeed));
  if (o.split.train + o.split.val + o.split.test > 1 + 1e-9)
    s.AddError("test", "train + val + test must be <= 1");
  s.Finish();
  ReadModel(g.Section("model"), o.model);
  ReadSampler(g.Section("sampler"), names, o);
  ReadBatch(g.Section("batch"), names, o);
  ReadHardware(g.Section("hardware"), hardware, o);
  ReadPartitionAndCache(g, names, o);
  ReadPipeline(g.Section("pipeline"), o.pipeline);
  ReadTopologyAndDisk(g, names, o);
  o.seed = static_cast<uint64_t>(g.Get<int64_t>("seed", static_cast<int64_t>(o.seed), limits::kSeed));
  sc.compare = ReadCompare(g, names);
  internal::CheckAgainstGraph(g, hardware, o);
  g.Finish();
}

}  // namespace

GnnNames BuiltinGnnNames() {
  gnn::SamplerRegistry samplers("sampler");
  gnn::RegisterSamplers(samplers);
  gnn::SeedOrderRegistry orders("seed-order");
  gnn::RegisterSeedOrders(orders);
  gnn::CachePolicyRegistry caches("cache-policy");
  gnn::RegisterCachePolicies(caches);
  gnn::PartitionerRegistry partitioners("partitioner");
  gnn::RegisterPartitioners(partitioners);
  gnn::TopologyCacheRegistry topology("topology-cache");
  gnn::RegisterTopologyCaches(topology);
  return {samplers.Names(), orders.Names(), caches.Names(), partitioners.Names(), topology.Names()};
}

Result<GnnScenario> ParseGnnScenario(std::string_view text, std::string file_name,
                                     const hw::Catalog& hardware, const GnnNames& names,
                                     const std::string& base_dir) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, file_name));
  MapReader root = doc.Root();
  GnnScenario sc;
  sc.options.name = root.Get<std::string>("name", std::filesystem::path(file_name).stem().string());
  MapReader g = root.Section("gnn");
  if (!g.present()) root.AddError("gnn", "missing required key 'gnn' (the GNN pipeline section)");
  if (g.present()) ReadGnn(g, hardware, names, base_dir, sc);
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());
  return sc;
}

Result<GnnScenario> LoadGnnScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                        const GnnNames& names) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseGnnScenario(text, path, hardware, names, std::filesystem::path(path).parent_path().string());
}

std::string SummarizeGnnOptions(const GnnOptions& o) {
  std::ostringstream s;
  s << o.graph.name << "; " << o.sampler << " [";
  for (size_t i = 0; i < o.sampler_options.fanouts.size(); ++i)
    s << (i ? ", " : "") << o.sampler_options.fanouts[i];
  s << "]; " << o.order << " batches of " << o.batch_size << "; " << o.cache.policy << " cache; "
    << o.hardware.machines << " x " << o.hardware.node << "; store " << gnn::FeatureStoreName(o.store);
  return s.str();
}

}  // namespace dlsim::io
