#include "network_tables.h"

#include <fstream>
#include <map>
#include <sstream>

namespace dlsim::fitnet {
namespace {

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  return out;
}

// Rows of a CSV file as header-name -> value maps.
Result<std::vector<std::map<std::string, std::string>>> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::NotFound("cannot open " + path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = Split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> cells = Split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

net::Fabric Dgx(double nvlink_gbps, double nic_gbps, bool nvls, std::string arch) {
  net::Fabric f;
  f.intra_bw = GBps(nvlink_gbps);
  f.inter_bw_per_gpu = Gbps(nic_gbps);
  f.intra_latency = net::kNvSwitchLatency;
  f.inter_latency = net::kDefaultNetworkLatency;
  f.nvls = nvls;
  f.architecture = std::move(arch);
  return f;
}

// nccl-tests text output (vTrain's LUT): size,count,type,time(ns),busbw,... (out-of-place first).
Status AddNcclTests(const std::string& dir, const std::string& gpu, const net::Fabric& fabric,
                    std::vector<Table>& out) {
  for (int n = 2; n <= 8; ++n) {
    const std::string name = "nccl/" + gpu + "/allreduce_" + std::to_string(n) + "gpu";
    std::ifstream in(dir + "/" + name + ".txt");
    if (!in) return Error::NotFound("cannot open " + dir + "/" + name + ".txt");
    Table t;
    t.name = name;
    t.layout = {n, n};
    t.fabric = fabric;
    if (gpu == "v100" && n != 8) {
      t.fitted = false;  // DGX-1 hybrid cube mesh: rings of 2..7 GPUs use fewer links
      t.note = "cube-mesh subset";
    }
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> c = Split(line);
      if (c.size() < 4 || c[0].rfind("size", 0) == 0) continue;
      t.samples.push_back({std::stod(c[0]), std::stod(c[3]) * 1e-9});
    }
    out.push_back(std::move(t));
  }
  return Status::Ok();
}

Status AddDistcaNcclPerf(const std::string& dir, std::vector<Table>& out) {
  DLSIM_ASSIGN_OR_RETURN(auto rows, ReadCsv(dir + "/distca/nccl_perf.csv"));
  std::map<std::pair<std::string, int>, Table> tables;
  for (auto& r : rows) {
    const std::string op = r["op"];
    const int n = std::stoi(r["ngpu"]);
    Table& t = tables[{op, n}];
    if (t.name.empty()) {
      std::string dash = op;
      for (char& ch : dash) ch = ch == '_' ? '-' : ch;
      t.name = "distca/nccl_perf " + op + " " + std::to_string(n) + "gpu";
      t.collective = *net::ParseCollective(dash);
      t.layout = {n, n};
      t.fabric = DgxH100();
    }
    t.samples.push_back({std::stod(r["size_bytes"]), std::stod(r["t_us_out"]) * 1e-6});
  }
  for (auto& [k, t] : tables) out.push_back(std::move(t));
  return Status::Ok();
}

Status AddVidur(const std::string& dir, const std::string& gpu, const std::string& op,
                std::vector<Table>& out) {
  const std::string file = "vidur/network/" + gpu + "_dgx/" + op + ".csv";
  DLSIM_ASSIGN_OR_RETURN(auto rows, ReadCsv(dir + "/" + file));
  std::map<std::pair<int, int>, Table> tables;
  for (auto& r : rows) {
    const int n = std::stoi(r["num_workers"]);
    const int per_node = std::stoi(r["devices_per_node"]);
    Table& t = tables[{n, per_node}];
    if (t.name.empty()) {
      t.name = file + " n=" + std::to_string(n) + " per_node=" + std::to_string(per_node);
      t.collective = op == "all_reduce" ? net::Collective::kAllReduce : net::Collective::kSendRecv;
      t.layout = {n, per_node};
      t.fabric = gpu == "a100" ? DgxA100() : DgxH100();
      if (n > per_node && gpu == "a100") {
        t.fitted = false;  // the A100 cluster's NICs are not documented
        t.note = "NICs unknown";
      }
    }
    t.samples.push_back({std::stod(r["size"]), std::stod(r["time_stats." + op + ".median"]) * 1e-3});
  }
  for (auto& [k, t] : tables) out.push_back(std::move(t));
  return Status::Ok();
}

// DistCA's PyTorch-level sweeps: nelem fp16 elements, latency in ms. Reported only.
Status AddDistcaTorch(const std::string& dir, std::vector<Table>& out) {
  for (const std::string op : {"allreduce", "allgather"}) {
    for (int n : {2, 4, 8}) {
      const std::string file = "distca/network-" + op + "-H100-" + std::to_string(n) + ".csv";
      DLSIM_ASSIGN_OR_RETURN(auto rows, ReadCsv(dir + "/" + file));
      Table t;
      t.name = file;
      t.collective = op == "allreduce" ? net::Collective::kAllReduce : net::Collective::kAllGather;
      t.layout = {n, n};
      t.fabric = DgxH100();
      t.fitted = false;
      t.note = "torch.distributed, not nccl-tests";
      for (auto& r : rows) {
        const double bytes = std::stod(r["nelem"]) * 2;
        t.samples.push_back({bytes, std::stod(r["latency(ms)"]) * 1e-3});
      }
      out.push_back(std::move(t));
    }
  }
  return Status::Ok();
}

}  // namespace

net::Fabric DgxA100() { return Dgx(300, 200, false, "ampere"); }
net::Fabric DgxH100() { return Dgx(450, 400, true, "hopper"); }
net::Fabric DgxV100() { return Dgx(150, 100, false, "volta"); }

Result<std::vector<Table>> LoadTables(const std::string& profiles) {
  std::vector<Table> out;
  DLSIM_RETURN_IF_ERROR(AddNcclTests(profiles, "a100", DgxA100(), out));
  DLSIM_RETURN_IF_ERROR(AddNcclTests(profiles, "v100", DgxV100(), out));
  DLSIM_RETURN_IF_ERROR(AddDistcaNcclPerf(profiles, out));
  DLSIM_RETURN_IF_ERROR(AddVidur(profiles, "a100", "all_reduce", out));
  DLSIM_RETURN_IF_ERROR(AddVidur(profiles, "a100", "send_recv", out));
  DLSIM_RETURN_IF_ERROR(AddVidur(profiles, "h100", "all_reduce", out));
  DLSIM_RETURN_IF_ERROR(AddVidur(profiles, "h100", "send_recv", out));
  DLSIM_RETURN_IF_ERROR(AddDistcaTorch(profiles, out));
  return out;
}

}  // namespace dlsim::fitnet
