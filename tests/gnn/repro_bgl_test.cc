// `dlsim repro bgl`: runs, and its rows say what they claim (docs/reproductions.md, "BGL").
#include <gtest/gtest.h>

#include "dlsim/repro/reproduction.h"
#include "gnn_test_env.h"

namespace dlsim::repro {
namespace {

TEST(ReproBglTest, BglBeatsTheDglLikeBaselineAndEachPartIsListed) {
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto repro = reg.Create("bgl");
  ASSERT_TRUE(repro.ok()) << repro.error().message;
  auto r = (*repro)->Run({&gnn::testing::Catalogs()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->paper_ratio, 1.9);
  EXPECT_GT(r->our_ratio, 1.0);
  ASSERT_EQ(r->details.size(), 6u);
  EXPECT_EQ(r->details[0]["gpu_hit_ratio"].get<double>(), 0.0);  // the baseline caches nothing
  EXPECT_GT(r->details[1]["gpu_hit_ratio"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(r->details[0]["speedup"].get<double>(), 1.0);
}

}  // namespace
}  // namespace dlsim::repro
