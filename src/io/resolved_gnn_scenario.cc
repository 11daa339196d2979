// The resolved GNN scenario (io/resolved_scenario.h): `name` and the `gnn:` section, every key with the value
// the run used; a graph read from a file is named by its file name.
#include <string>

#include "dlsim/io/resolved_scenario.h"

namespace dlsim::io {
namespace {

using nlohmann::ordered_json;

// A topology share: a fraction, or "auto" (-1: CaliEX's search).
ordered_json ShareJson(double share) { return share < 0 ? ordered_json("auto") : ordered_json(share); }

ordered_json GraphJson(const gnn::GraphSource& g) {
  ordered_json j;
  if (g.rmat) {
    const gnn::RmatOptions& r = g.rmat_options;
    j["rmat"] = {{"scale", r.scale}, {"edge_factor", r.edge_factor}, {"a", r.a}, {"b", r.b}, {"c", r.c},
                 {"seed", r.seed}};
  } else {
    j[g.shipped ? "shipped" : "file"] = g.name;
  }
  j["directed"] = !g.undirected;
  return j;
}

std::string DType(hw::DType t) { return std::string(hw::DTypeName(t)); }

ordered_json PipelineJson(const gnn::PipelineOptions& p) {
  return {{"pipelined", p.pipelined},
          {"isolation", p.isolation},
          {"sample_ns_per_edge", p.sample_ns_per_edge},
          {"gather_gb_per_s_per_core", p.gather_gbps_per_core}};
}

// The partition, feature store, caches, topology and disk keys, into `j`.
void StorageJson(const gnn::GnnOptions& o, ordered_json& j) {
  j["partition"] = {{"name", o.partitioner},
                    {"blocks_per_part", o.partition_options.blocks_per_part},
                    {"slack", o.partition_options.slack}};
  j["store"] = std::string(gnn::FeatureStoreName(o.store));
  j["cache"] = {{"policy", o.cache.policy}, {"gpu_gib", o.cache.gpu_gib}, {"host_gib", o.cache.host_gib}};
  j["topology"] = {{"store", std::string(gnn::TopologyStoreName(o.topology.store))},
                   {"cache", o.topology.cache},
                   {"cache_gib", o.topology.cache_gib},
                   {"tau", o.topology.tau},
                   {"hops", o.topology.hops}};
  j["disk"] = {{"page_cache", o.disk.page_cache},
               {"memory_gib", o.disk.memory_gib},
               {"topology_share", ShareJson(o.disk.topology_share)},
               {"superbatch", o.disk.superbatch}};
}

// One --compare variant: the keys it replaces.
ordered_json VariantJson(const gnn::GnnVariant& v) {
  ordered_json j = {{"name", v.name}};
  const auto text = [&j](const char* key, const std::string& value) {
    if (!value.empty()) j[key] = value;
  };
  const auto flag = [&j](const char* key, int value) {
    if (value >= 0) j[key] = value == 1;
  };
  text("order", v.order);
  text("cache", v.cache_policy);
  text("partition", v.partitioner);
  flag("isolation", v.isolation);
  text("topology_cache", v.topology_cache);
  flag("pipelined", v.pipelined);
  flag("page_cache", v.page_cache);
  if (v.topology_share >= -1) j["topology_share"] = ShareJson(v.topology_share);
  if (v.superbatch > 0) j["superbatch"] = v.superbatch;
  return j;
}

}  // namespace

ordered_json ResolvedGnnScenario(const gnn::GnnOptions& o, const std::vector<gnn::GnnVariant>& compare) {
  ordered_json g;
  g["graph"] = GraphJson(o.graph);
  g["features"] = {{"dim", o.features.dim}, {"dtype", DType(o.features.dtype)}};
  g["split"] = {
      {"train", o.split.train}, {"val", o.split.val}, {"test", o.split.test}, {"seed", o.split.seed}};
  g["model"] = {{"layer", std::string(gnn::GnnLayerName(o.model.layer))},
                {"hidden", o.model.hidden},
                {"classes", o.model.classes},
                {"heads", o.model.heads},
                {"dtype", DType(o.model.dtype)}};
  g["sampler"] = {{"name", o.sampler},
                  {"fanouts", o.sampler_options.fanouts},
                  {"walks", o.sampler_options.walks},
                  {"walk_length", o.sampler_options.walk_length}};
  g["batch"] = {{"size", o.batch_size}, {"order", o.order}, {"sequences", o.order_options.sequences}};
  g["hardware"] = {{"node", o.hardware.node},
                   {"machines", o.hardware.machines},
                   {"gpus_per_machine", o.hardware.gpus_per_machine},
                   {"cpu_cores", o.hardware.cpu_cores}};
  StorageJson(o, g);
  g["pipeline"] = PipelineJson(o.pipeline);
  g["seed"] = o.seed;
  if (!compare.empty()) {
    g["compare"] = ordered_json::array();
    for (const gnn::GnnVariant& v : compare) g["compare"].push_back(VariantJson(v));
  }
  return {{"name", o.name}, {"gnn", g}};
}

}  // namespace dlsim::io
