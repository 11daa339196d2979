// The data-aware reproductions (bytetransformer, distca, chunkflow, skrull): each runs, fills
// the result, gives a finite positive ratio, and gives the same bytes twice.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/run_dlsim.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {
namespace {

class DataReproTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { catalogs_ = new catalog::Catalogs(io::LoadCatalogs({}).value()); }
  ReproResult RunOne() const {
    ReproRegistry reg("reproduction");
    RegisterReproductions(reg);
    auto entry = reg.Create(GetParam());
    EXPECT_TRUE(entry.ok()) << GetParam();
    auto r = (*entry)->Run(ReproEnv{catalogs_});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return *r;
  }
  static inline catalog::Catalogs* catalogs_ = nullptr;
};

TEST_P(DataReproTest, RunsWithAFinitePositiveRatio) {
  const ReproResult r = RunOne();
  EXPECT_EQ(r.name, GetParam());
  EXPECT_GT(r.paper_ratio, 1.0);
  EXPECT_GT(r.our_ratio, 0.0);
  EXPECT_TRUE(std::isfinite(r.our_ratio));
  EXPECT_FALSE(r.workload.empty());
  EXPECT_FALSE(r.baseline.empty());
  ASSERT_TRUE(r.details.is_array());
  ASSERT_FALSE(r.details.empty());
  // Every detail row has a ratio; at least one is positive and finite.
  int positive = 0;
  for (const auto& row : r.details) {
    ASSERT_TRUE(row.contains("ratio")) << row.dump();
    const double x = row["ratio"].get<double>();
    EXPECT_TRUE(std::isfinite(x));
    EXPECT_GE(x, 0.0);
    positive += x > 0;
  }
  EXPECT_GT(positive, 0);
}

TEST_P(DataReproTest, IsDeterministic) {
  const ReproResult a = RunOne(), b = RunOne();
  EXPECT_EQ(a.our_ratio, b.our_ratio);
  EXPECT_EQ(a.details.dump(), b.details.dump());
}

TEST_P(DataReproTest, CliJsonHasTheKeys) {
  const auto out = testing::RunDlsim("repro " + GetParam() + " --json", /*merge_stderr=*/false);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const auto j = nlohmann::json::parse(out.output);
  for (const char* key : {"name", "claim", "paper_ratio", "our_ratio", "workload", "baseline", "details"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["name"], GetParam());
  EXPECT_GT(j["our_ratio"].get<double>(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Systems, DataReproTest,
                         ::testing::Values("bytetransformer", "distca", "chunkflow", "skrull"));

// Padding is the only difference in the ByteTransformer comparison: at batch 1 there is none,
// so padded and padding-free cost the same; at batch 16 padding-free does fewer FLOPs.
TEST(ByteTransformerRepro, BatchOneHasNothingToRemove) {
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto catalogs = io::LoadCatalogs({}).value();
  auto r = (*reg.Create("bytetransformer"))->Run(ReproEnv{&catalogs});
  ASSERT_TRUE(r.ok());
  for (const auto& row : r->details) {
    if (row["batch"] == 1) {
      EXPECT_DOUBLE_EQ(row["ratio"].get<double>(), 1.0) << row.dump();
    } else {
      EXPECT_GT(row["flops_ratio"].get<double>(), 1.3) << row.dump();
    }
  }
}

}  // namespace
}  // namespace dlsim::repro
