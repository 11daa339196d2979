// `dlsim repro helios`: runs, and its rows show the mechanism (docs/reproductions.md, "Helios").
#include <gtest/gtest.h>

#include "common/sanitizers.h"
#include "dlsim/repro/reproduction.h"
#include "gnn_test_env.h"

namespace dlsim::repro {
namespace {

TEST(ReproHeliosTest, PreSamplingKeepsTheTailFlatWhereOnDemandSaturates) {
  DLSIM_SKIP_UNDER_SANITIZERS();  // the capacity searches simulate ~20M queries (15 s in Release)
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto r = (*reg.Create("helios"))->Run({&gnn::testing::Catalogs()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->paper_ratio, 67);
  // Both capacities are measured (neither 0 nor the search's cap), Helios' far above on-demand's.
  EXPECT_GT(r->our_ratio, 10.0);
  EXPECT_LT(r->our_ratio, 1e9 / 1e4);
  ASSERT_EQ(r->details.size(), 5u);  // 10K, 100K, 300K, the baseline's capacity, 1M QPS
  const auto& low = r->details.front();
  const auto& high = r->details.back();
  // Helios' request path is local: its P99 hardly moves with the load; on-demand's queues grow.
  EXPECT_LT(high["helios_p99_us"].get<double>(), 1.2 * low["helios_p99_us"].get<double>());
  EXPECT_GT(high["demand_p99_us"].get<double>(), 20000);  // past its capacity: over the SLO
  const auto& at_capacity = r->details[3];
  EXPECT_LE(at_capacity["demand_p99_us"].get<double>(), 20000);
  for (const auto& row : r->details) EXPECT_GT(row["p99_ratio"].get<double>(), 1.0);
}

}  // namespace
}  // namespace dlsim::repro
