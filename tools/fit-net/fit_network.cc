// dlsim-fit-net PROFILES_DIR > data/calibration/network.yaml
//
// Fits the few constants of net::NetworkCalibration (link efficiency, small-message ramp,
// per-step latency per link class; NVLS efficiency; launch overhead) by coordinate descent on
// the mean of per-table MAPEs (rows >= kMinFitBytes) of the "nccl" collective model, then prints
// the calibration YAML with per-table MAPE. Deterministic.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/net/collective.h"
#include "network_tables.h"

namespace dlsim::fitnet {
namespace {

constexpr double kMinFitBytes = 256e3;

struct Param {
  std::string name;
  std::function<double&(net::NetworkCalibration&)> ref;  // the value, in fitting units
  double lo, hi;
};

// Durations and sizes are fitted through double mirrors, written back before each evaluation.
struct Mirror {
  double ramp_mb, step_us;
};
struct State {
  net::NetworkCalibration cal;
  std::map<std::string, Mirror> mirror;  // per link-calibration key
  double launch_us = 5;
};

net::LinkCalibration& LinkOf(net::NetworkCalibration& c, const std::string& key) {
  if (key == "inter_node") return c.inter_node;
  if (key == "pcie") return c.pcie;
  return c.nvlink[key];
}

void Sync(State& s) {
  for (auto& [key, m] : s.mirror) {
    net::LinkCalibration& l = LinkOf(s.cal, key);
    l.ramp_half_size = MB(m.ramp_mb);
    l.step_latency = Micros(m.step_us);
  }
  s.cal.launch_overhead = Micros(s.launch_us);
}

double TableMape(const net::CollectiveModel& m, const Table& t, double min_bytes) {
  double sum = 0;
  int count = 0;
  for (const Sample& s : t.samples) {
    if (s.bytes < min_bytes) continue;
    const double pred = m.Time(t.collective, ByteCount(s.bytes), t.layout, t.fabric).ToSeconds();
    sum += std::abs(pred - s.seconds) / s.seconds;
    ++count;
  }
  return count ? 100 * sum / count : 0;
}

std::unique_ptr<net::CollectiveModel> Model(const net::NetworkCalibration& cal) {
  net::CollectiveRegistry reg("collective");
  net::RegisterCollectiveModels(reg);
  return std::move(reg.Create("nccl", cal)).value();
}

double Objective(State& s, const std::vector<Table>& tables) {
  Sync(s);
  auto m = Model(s.cal);
  double sum = 0;
  int count = 0;
  for (const Table& t : tables) {
    if (!t.fitted) continue;
    sum += TableMape(*m, t, kMinFitBytes);
    ++count;
  }
  return sum / count;
}

std::vector<Param> Params(State& s) {
  std::vector<Param> p;
  for (const std::string key : {"ampere", "hopper", "volta", "inter_node"}) {
    s.mirror[key] = {4, 1};
    LinkOf(s.cal, key);
    p.push_back(
        {key + ".efficiency", [key](auto& c) -> double& { return LinkOf(c, key).efficiency; }, 0.3, 1.2});
    p.push_back(
        {key + ".ramp_exponent", [key](auto& c) -> double& { return LinkOf(c, key).ramp_exponent; }, 0.3, 3});
  }
  p.push_back({"ampere.small_group_loss",
               [](auto& c) -> double& { return LinkOf(c, "ampere").small_group_loss; }, 0, 1});
  p.push_back({"nvls_efficiency", [](auto& c) -> double& { return c.nvls_efficiency; }, 0.3, 1.2});
  return p;
}

void Fit(State& s, const std::vector<Table>& tables) {
  std::vector<Param> params = Params(s);
  std::vector<std::pair<std::string, double*>> mirrors;
  for (auto& [key, m] : s.mirror) {
    mirrors.push_back({key + ".ramp_half_mb", &m.ramp_mb});
    mirrors.push_back({key + ".step_latency_us", &m.step_us});
  }
  mirrors.push_back({"launch_overhead_us", &s.launch_us});
  double best = Objective(s, tables);
  for (double step = 0.3; step > 0.002; step *= 0.5) {
    for (int sweep = 0; sweep < 6; ++sweep) {
      bool improved = false;
      auto try_value = [&](double& v, double lo, double hi) {
        for (double f : {1 + step, 1 / (1 + step)}) {
          const double old = v;
          v = std::clamp(old * f, lo, hi);
          const double e = Objective(s, tables);
          if (e < best - 1e-9) {
            best = e;
            improved = true;
            return;
          }
          v = old;
        }
      };
      for (Param& p : params) {
        double& v = p.ref(s.cal);
        if (v == 0) v = 0.01;
        try_value(v, p.lo, p.hi);
      }
      for (auto& [name, v] : mirrors) try_value(*v, 0.0, 1e4);
      if (!improved) break;
    }
  }
  Sync(s);
  std::fprintf(stderr, "mean fitted-table MAPE %.2f%%\n", best);
}

void PrintLink(const char* indent, const std::string& key, const net::LinkCalibration& l) {
  std::printf("%s%s: {efficiency: %.4f, ramp_half_mb: %.4g, ramp_exponent: %.3f, step_latency_us: %.3f",
              indent, key.c_str(), l.efficiency, l.ramp_half_size.ToBytes() * 1e-6, l.ramp_exponent,
              l.step_latency.ToMicros());
  if (l.small_group_loss > 0) std::printf(", small_group_loss: %.4f", l.small_group_loss);
  std::printf("}\n");
}

void Print(const State& s, const std::vector<Table>& tables) {
  const net::NetworkCalibration& c = s.cal;
  std::printf("nvlink:\n");
  for (const auto& [arch, l] : c.nvlink) PrintLink("  ", arch, l);
  PrintLink("  ", "default", c.nvlink.at("hopper"));
  PrintLink("", "pcie", c.pcie);
  PrintLink("", "inter_node", c.inter_node);
  std::printf("nvls_efficiency: %.4f\ntree_efficiency: %.4f\nlaunch_overhead_us: %.3f\n", c.nvls_efficiency,
              c.tree_efficiency, c.launch_overhead.ToMicros());
  auto m = Model(c);
  std::printf(
      "# MAPE of the \"nccl\" model per table, %% (rows >= 1 MB / >= 16 MB); fitted: used in the fit.\n");
  std::printf("fit:\n");
  for (const Table& t : tables) {
    std::printf("  - {table: \"%s\", fitted: %s, rows: %zu, mape_1mb: %.1f, mape_16mb: %.1f%s%s%s}\n",
                t.name.c_str(), t.fitted ? "true" : "false", t.samples.size(), TableMape(*m, t, 1e6),
                TableMape(*m, t, 16e6), t.note.empty() ? "" : ", note: \"", t.note.c_str(),
                t.note.empty() ? "" : "\"");
  }
}

}  // namespace
}  // namespace dlsim::fitnet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: dlsim-fit-net PROFILES_DIR   (e.g. /work/shared/data/profiles)\n");
    return 2;
  }
  auto tables = dlsim::fitnet::LoadTables(argv[1]);
  if (!tables.ok()) {
    std::fprintf(stderr, "error: %s\n", tables.error().message.c_str());
    return 1;
  }
  dlsim::fitnet::State s;
  dlsim::fitnet::Fit(s, *tables);
  dlsim::fitnet::Print(s, *tables);
  return 0;
}
