// The fitted "nccl" model against nccl-tests rows copied into tests/data/nccl/ (sources in the files).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/net/collective.h"

namespace dlsim::net {
namespace {

std::vector<std::vector<std::string>> ReadRows(const std::string& file) {
  std::ifstream in(std::string(DLSIM_TEST_DATA_DIR) + "/nccl/" + file);
  EXPECT_TRUE(in) << file;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, ',')) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

std::unique_ptr<CollectiveModel> Nccl() {
  auto cal = io::LoadNetworkCalibrationFile(std::string(DLSIM_DATA_DIR) + "/calibration/network.yaml");
  EXPECT_TRUE(cal.ok()) << (cal.ok() ? "" : cal.error().message);
  CollectiveRegistry reg("collective");
  RegisterCollectiveModels(reg);
  return std::move(reg.Create("nccl", cal.ok() ? *cal : NetworkCalibration{})).value();
}

Fabric Dgx(double nvlink_gbps, bool nvls, const char* arch) {
  Fabric f;
  f.intra_bw = GBps(nvlink_gbps);
  f.inter_bw_per_gpu = Gbps(400);
  f.intra_latency = kNvSwitchLatency;
  f.inter_latency = kDefaultNetworkLatency;
  f.nvls = nvls;
  f.architecture = arch;
  return f;
}

TEST(NcclFit, EmbeddedCalibrationLoads) {
  auto cal = io::LoadDefaultNetworkCalibration();
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  EXPECT_TRUE(cal->nvlink.count("ampere"));
  EXPECT_TRUE(cal->nvlink.count("hopper"));
  EXPECT_GT(cal->nvls_efficiency, 0.3);
}

TEST(NcclFit, BadCalibrationKeyIsAnError) {
  auto cal = io::ParseNetworkCalibration("nvlink:\n  hopper: {efficency: 0.8}\n", "bad.yaml");
  ASSERT_FALSE(cal.ok());
  EXPECT_NE(cal.error().message.find("efficiency"), std::string::npos) << cal.error().message;
}

TEST(NcclFit, A100EightGpuAllReduceWithinTenPercent) {
  auto m = Nccl();
  double sum = 0;
  int n = 0;
  for (const auto& r : ReadRows("a100_allreduce_8gpu.csv")) {
    const double bytes = std::stod(r[0]);
    const double measured = std::stod(r[1]) * 1e-9;
    ASSERT_GE(bytes, 16e6);
    const double pred =
        m->Time(Collective::kAllReduce, ByteCount(bytes), {8, 8}, Dgx(300, false, "ampere")).ToSeconds();
    sum += std::abs(pred - measured) / measured;
    ++n;
  }
  ASSERT_GT(n, 20);
  EXPECT_LE(100 * sum / n, 10.0);
}

TEST(NcclFit, H100AllReduceAndAllGatherWithinFifteenPercent) {
  auto m = Nccl();
  std::map<std::pair<std::string, int>, std::pair<double, int>> err;  // (op, gpus) -> (sum, count)
  for (const auto& r : ReadRows("h100_nccl_perf.csv")) {
    const double bytes = std::stod(r[2]);
    if (bytes < 16e6) continue;
    const int gpus = std::stoi(r[1]);
    const Collective c = r[0] == "all_reduce" ? Collective::kAllReduce : Collective::kAllGather;
    const double measured = std::stod(r[3]) * 1e-6;
    const double pred = m->Time(c, ByteCount(bytes), {gpus, gpus}, Dgx(450, true, "hopper")).ToSeconds();
    auto& [sum, count] = err[{r[0], gpus}];
    sum += std::abs(pred - measured) / measured;
    ++count;
  }
  ASSERT_EQ(err.size(), 6u);
  for (const auto& [key, e] : err) {
    EXPECT_LE(100 * e.first / e.second, 15.0) << key.first << " " << key.second << " GPUs";
  }
}

}  // namespace
}  // namespace dlsim::net
