// `dlsim repro helios`: runs, and its rows show the mechanism (docs/reproductions.md, "Helios").
#include <gtest/gtest.h>

#include "dlsim/repro/reproduction.h"
#include "gnn_test_env.h"

namespace dlsim::repro {
namespace {

TEST(ReproHeliosTest, PreSamplingKeepsTheTailFlatWhereOnDemandSaturates) {
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto r = (*reg.Create("helios"))->Run({&gnn::testing::Catalogs()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->paper_ratio, 67);
  EXPECT_GT(r->our_ratio, 1.0);
  ASSERT_EQ(r->details.size(), 5u);
  const auto& low = r->details.front();
  const auto& high = r->details.back();
  // Helios' request path is local: its P99 hardly moves with the load; on-demand's queues grow.
  EXPECT_LT(high["helios_p99_us"].get<double>(), 1.2 * low["helios_p99_us"].get<double>());
  EXPECT_GT(high["demand_p99_us"].get<double>(), 10 * low["demand_p99_us"].get<double>());
  for (const auto& row : r->details) EXPECT_GT(row["p99_ratio"].get<double>(), 1.0);
}

}  // namespace
}  // namespace dlsim::repro
