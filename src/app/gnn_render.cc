// Terminal and JSON renderings of a GNN pipeline result (dlsim gnn).
#include "dlsim/app/gnn_render.h"

#include <fmt/format.h>

#include "dlsim/report/format.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"

namespace dlsim::app {

using gnn::GnnResult;

namespace {

nlohmann::ordered_json GraphJson(const GnnResult& r) {
  return {{"name", r.graph_name},
          {"nodes", r.nodes},
          {"edges", r.edges},
          {"degree",
           {{"mean", r.degrees.mean},
            {"p50", r.degrees.p50},
            {"p99", r.degrees.p99},
            {"max", r.degrees.max},
            {"isolated", r.degrees.isolated}}},
          {"csr_bytes", static_cast<int64_t>(r.graph_bytes)},
          {"train_nodes", r.train_nodes}};
}

nlohmann::ordered_json StagesJson(const GnnResult& r) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const gnn::StageResult& s : r.stages)
    out.push_back({{"name", s.name},
                   {"busy_s", s.busy.ToSeconds()},
                   {"per_batch_s", s.mean_per_batch.ToSeconds()},
                   {"utilisation", s.utilisation},
                   {"cores", s.cores}});
  return out;
}

std::string Ratio(double x) { return report::FormatPercent(x); }

}  // namespace

nlohmann::ordered_json GnnJson(const GnnResult& r) {
  nlohmann::ordered_json j;
  j["feasible"] = r.feasible;
  if (!r.feasible) j["reason"] = r.reason;
  j["graph"] = GraphJson(r);
  j["sampler"] = r.sampler;
  j["order"] = r.order;
  j["machines"] = r.machines;
  j["gpus_per_machine"] = r.gpus_per_machine;
  j["batches"] = r.batches;
  j["sampled_edges_per_batch"] = r.sampled_edges_per_batch;
  j["input_nodes_per_batch"] = r.input_nodes_per_batch;
  j["epoch_s"] = r.epoch.ToSeconds();
  j["fill_s"] = r.fill.ToSeconds();
  j["bottleneck"] = r.bottleneck;
  j["stages"] = StagesJson(r);
  j["cache"] = {{"policy", r.cache_policy},
                {"gpu_nodes", r.gpu_cache_nodes},
                {"host_nodes", r.host_cache_nodes},
                {"gpu_hit_ratio", r.gpu_hit_ratio},
                {"host_hit_ratio", r.host_hit_ratio}};
  j["partition"] = {{"name", r.partitioner},
                    {"edge_cut", r.partition.edge_cut},
                    {"node_balance", r.partition.node_balance},
                    {"train_balance", r.partition.train_balance},
                    {"remote_requests_per_batch", r.remote_requests_per_batch}};
  j["topology"] = {{"store", r.topology_store},
                   {"cache", r.topology_cache},
                   {"cache_lists", r.topology_cache_lists},
                   {"cache_bytes", report::JsonBytes(Bytes(r.topology_cache_bytes))},
                   {"hit_ratio", r.topology_hit_ratio}};
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const auto& [share, pages] : r.split_curve)
    curve.push_back({{"share", share}, {"predicted_pages", pages}});
  j["disk"] = {{"pages_per_batch", r.disk_pages_per_batch},
               {"topology_pages_per_batch", r.topology_pages_per_batch},
               // null when no memory budget is split between the two caches (not a run on disk)
               {"topology_share",
                r.topology_share >= 0 ? nlohmann::ordered_json(r.topology_share) : nlohmann::ordered_json()},
               {"split_curve", curve}};
  j["bytes"] = {{"gpu", report::JsonBytes(r.bytes.gpu)},
                {"nvlink", report::JsonBytes(r.bytes.nvlink)},
                {"host", report::JsonBytes(r.bytes.host)},
                {"remote", report::JsonBytes(r.bytes.remote)},
                {"disk", report::JsonBytes(r.bytes.disk)}};
  return j;
}

nlohmann::ordered_json GnnCompareJson(const std::vector<gnn::GnnVariant>& variants,
                                      const std::vector<GnnResult>& results) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    nlohmann::ordered_json j{{"name", variants[i].name}};
    j.update(GnnJson(results[i]));
    list.push_back(std::move(j));
  }
  return {{"variants", list}};
}

std::string FormatGnnReport(const gnn::GnnOptions& o, const GnnResult& r) {
  std::string out = fmt::format("{}: {} nodes, {} stored edges (degree mean {:.1f}, max {}), CSR {}\n",
                                r.graph_name, report::FormatCount(r.nodes), report::FormatCount(r.edges),
                                r.degrees.mean, r.degrees.max, report::FormatBytes(Bytes(r.graph_bytes)));
  if (!r.feasible) return out + "infeasible: " + r.reason + "\n";
  out += fmt::format("{} training nodes in {} batches of {} ({} order) on {} x {} GPUs; {} sampler\n",
                     report::FormatCount(r.train_nodes), r.batches, o.batch_size, r.order, r.machines,
                     r.gpus_per_machine, r.sampler);
  out +=
      fmt::format("per batch: {:.0f} sampled edges, {:.0f} input nodes; {:.1f} remote sampling requests\n\n",
                  r.sampled_edges_per_batch, r.input_nodes_per_batch, r.remote_requests_per_batch);
  report::Table t("Pipeline stages (slowest machine)");
  t.AddColumn("Stage").AddColumn("Busy").AddColumn("Per batch").AddColumn("Utilisation").AddColumn("Cores");
  for (const gnn::StageResult& s : r.stages)
    t.AddRow({s.name, report::FormatDuration(s.busy), report::FormatDuration(s.mean_per_batch),
              Ratio(s.utilisation), s.cores ? std::to_string(s.cores) : "-"});
  out += t.Render();
  out += fmt::format("\nepoch {} (fill {}), bottleneck: {}\n", report::FormatDuration(r.epoch),
                     report::FormatDuration(r.fill), r.bottleneck);
  out += fmt::format("cache {}: GPU {} nodes/machine, hit ratio {}; host cache {} nodes, hit ratio {}\n",
                     r.cache_policy, report::FormatCount(r.gpu_cache_nodes), Ratio(r.gpu_hit_ratio),
                     report::FormatCount(r.host_cache_nodes), Ratio(r.host_hit_ratio));
  if (r.topology_store == "disk" || r.topology_cache != "none")
    out += fmt::format("topology ({}): cache {} holds {} lists ({}), hit ratio {}\n", r.topology_store,
                       r.topology_cache, report::FormatCount(r.topology_cache_lists),
                       report::FormatBytes(Bytes(r.topology_cache_bytes)), Ratio(r.topology_hit_ratio));
  if (r.disk_pages_per_batch > 0 || r.topology_share >= 0)
    out += fmt::format("disk: {:.0f} pages of 4 KiB per batch ({:.0f} of them adjacency lists){}\n",
                       r.disk_pages_per_batch, r.topology_pages_per_batch,
                       r.topology_share >= 0
                           ? fmt::format("; memory split {} to topology{}", Ratio(r.topology_share),
                                         r.split_curve.empty() ? "" : " (searched)")
                           : "");
  if (r.machines > 1)
    out +=
        fmt::format("partition {}: edge cut {}, node balance {:.3f}, train balance {:.3f}\n", r.partitioner,
                    Ratio(r.partition.edge_cut), r.partition.node_balance, r.partition.train_balance);
  out += fmt::format("feature bytes: GPU {}, NVLink {}, host {}, remote {}, disk {}\n",
                     report::FormatBytes(r.bytes.gpu), report::FormatBytes(r.bytes.nvlink),
                     report::FormatBytes(r.bytes.host), report::FormatBytes(r.bytes.remote),
                     report::FormatBytes(r.bytes.disk));
  return out;
}

std::string FormatGnnCompare(const std::vector<gnn::GnnVariant>& variants,
                             const std::vector<GnnResult>& results) {
  report::Table t("Policies on the same graph");
  t.AddColumn("Variant").AddColumn("Order").AddColumn("Cache").AddColumn("Partition").AddColumn("Epoch");
  t.AddColumn("Speed-up")
      .AddColumn("Bottleneck")
      .AddColumn("GPU hits")
      .AddColumn("Edge cut")
      .AddColumn("Remote req/batch")
      .AddColumn("Disk pages/batch");
  const double base = results.empty() ? 0 : results[0].epoch.ToSeconds();
  for (size_t i = 0; i < results.size(); ++i) {
    const GnnResult& r = results[i];
    if (!r.feasible) {
      t.AddRow({variants[i].name, r.order, r.cache_policy, r.partitioner, "infeasible"});
      continue;
    }
    const double e = r.epoch.ToSeconds();
    t.AddRow({variants[i].name, r.order, r.cache_policy, r.partitioner, report::FormatDuration(r.epoch),
              e > 0 ? fmt::format("{:.2f}x", base / e) : "-", r.bottleneck, Ratio(r.gpu_hit_ratio),
              r.machines > 1 ? Ratio(r.partition.edge_cut) : "-",
              fmt::format("{:.1f}", r.remote_requests_per_batch),
              fmt::format("{:.0f}", r.disk_pages_per_batch)});
  }
  return t.Render() + "speed-up: the first variant's epoch / this one's\n";
}

}  // namespace dlsim::app
