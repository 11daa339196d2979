// The GoldMiner reproduction's mechanism: data workers only ever add input capacity, a lone
// input-bound job is fed up to min(its GPU rate, the cluster's idle cores), and on the trace the
// JCT gain comes with more busy GPUs and grows with the load (queues shrink as jobs speed up).
#include <gtest/gtest.h>

#include <algorithm>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {
namespace {

TEST(GoldMinerRepro, DataWorkersFeedJobsUpToTheClusterBound) {
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto catalogs = io::LoadCatalogs({}).value();
  auto r = (*reg.Create("goldminer"))->Run(ReproEnv{&catalogs});
  ASSERT_TRUE(r.ok()) << r.error().message;
  // 8 nodes x 96 cores + 2 CPU-only nodes x 96 = 960 cores; one 8-GPU job holds 96 locally.
  const double bound = 960.0 / 96.0;
  std::vector<double> ratio_by_load;
  for (const auto& row : r->details) {
    const double base = row["gpu_busy_fifo"].get<double>();
    const double gm = row["gpu_busy_goldminer"].get<double>();
    EXPECT_GE(gm, base - 1e-12) << row.dump();
    EXPECT_GE(row["jct_ratio"].get<double>(), 1 - 1e-9) << row.dump();
    if (row["experiment"] == "single 8-GPU job")
      EXPECT_NEAR(gm, std::min(1.0, bound * base), 1e-9) << row.dump();
    else if (row["cpu_cost_scale"] == 1)
      ratio_by_load.push_back(row["jct_ratio"].get<double>());
  }
  ASSERT_EQ(ratio_by_load.size(), 4u);  // loads 0.8, 0.4, 0.6, 0.9
  EXPECT_LT(ratio_by_load[1], ratio_by_load[2]);
  EXPECT_LT(ratio_by_load[2], ratio_by_load[0]);
  EXPECT_LT(ratio_by_load[0], ratio_by_load[3]);
  EXPECT_GT(r->our_ratio, 1.4);  // 1.49 with the published input costs (2.11 with the earlier assumed ones)
}

}  // namespace
}  // namespace dlsim::repro
