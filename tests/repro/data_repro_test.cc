// The data-aware reproductions (bytetransformer, distca, chunkflow, skrull) as a whole: the
// headline is the statistic of the detail rows that each one states, the CLI prints what the
// library computed, and two runs give the same bytes. What each system's mechanism does is
// tested on small workloads in mechanism_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/run_dlsim.h"
#include "common/sanitizers.h"
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

// The statistic behind our_ratio: the largest row ratio (distca, chunkflow), the mean over the
// feasible rows (skrull, ratio 0 = infeasible), the geometric mean over the batch-16 rows
// (bytetransformer; batch 1 is the control).
double Headline(const std::string& name, const nlohmann::ordered_json& rows) {
  double max = 0, sum = 0, log_sum = 0;
  int n = 0, n16 = 0;
  for (const auto& row : rows) {
    const double x = row["ratio"].get<double>();
    max = std::max(max, x);
    if (x > 0) {
      sum += x;
      ++n;
    }
    if (row.contains("batch") && row["batch"] == 16) {
      log_sum += std::log(x);
      ++n16;
    }
  }
  if (name == "skrull") return n > 0 ? sum / n : 0.0;
  if (name == "bytetransformer") return n16 > 0 ? std::exp(log_sum / n16) : 0.0;
  return max;
}

TEST_P(DataReproTest, HeadlineIsTheStatedStatisticOfTheRows) {
  if (GetParam() == "chunkflow") DLSIM_SKIP_UNDER_SANITIZERS();  // 20-43 s under the sanitizers
  const ReproResult r = RunOne();
  EXPECT_EQ(r.name, GetParam());
  ASSERT_TRUE(r.details.is_array());
  ASSERT_FALSE(r.details.empty());
  for (const auto& row : r.details) {
    ASSERT_TRUE(row.contains("ratio")) << row.dump();
    EXPECT_TRUE(std::isfinite(row["ratio"].get<double>())) << row.dump();
  }
  EXPECT_DOUBLE_EQ(r.our_ratio, Headline(GetParam(), r.details));
}

TEST_P(DataReproTest, IsDeterministic) {
  if (GetParam() == "chunkflow") DLSIM_SKIP_UNDER_SANITIZERS();  // 20-43 s under the sanitizers
  const ReproResult a = RunOne(), b = RunOne();
  EXPECT_EQ(a.our_ratio, b.our_ratio);
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.notes, b.notes);
  EXPECT_EQ(a.details.dump(), b.details.dump());
}

// The CLI prints numbers to 9 significant digits: equal within that, everything else exactly.
void ExpectSameJson(const nlohmann::ordered_json& printed, const nlohmann::ordered_json& computed,
                    const std::string& where) {
  if (computed.is_number_float()) {
    ASSERT_TRUE(printed.is_number()) << where;
    const double want = computed.get<double>();
    EXPECT_NEAR(printed.get<double>(), want, 1e-8 * std::max(1.0, std::abs(want))) << where;
  } else if (computed.is_structured()) {
    ASSERT_EQ(printed.size(), computed.size()) << where;
    auto p = printed.begin();
    for (auto c = computed.begin(); c != computed.end(); ++c, ++p) {
      if (computed.is_object()) {
        ASSERT_EQ(p.key(), c.key()) << where;
      }
      ExpectSameJson(*p, *c, where + "/" + (computed.is_object() ? c.key() : ""));
    }
  } else {
    EXPECT_EQ(printed, computed) << where;
  }
}

TEST_P(DataReproTest, CliJsonIsWhatTheLibraryComputed) {
  if (GetParam() == "chunkflow") DLSIM_SKIP_UNDER_SANITIZERS();  // 20-43 s under the sanitizers
  const auto out = testing::RunDlsim("repro " + GetParam() + " --json", /*merge_stderr=*/false);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const auto j = nlohmann::ordered_json::parse(out.output);
  for (const char* key : {"name", "claim", "paper_ratio", "our_ratio", "workload", "baseline", "details"})
    EXPECT_TRUE(j.contains(key)) << key;
  const ReproResult r = RunOne();
  EXPECT_EQ(j["name"], GetParam());
  EXPECT_NEAR(j["our_ratio"].get<double>(), r.our_ratio, 1e-8 * r.our_ratio);
  EXPECT_EQ(j["workload"], r.workload);
  ExpectSameJson(j["details"], r.details, "details");
}

INSTANTIATE_TEST_SUITE_P(Systems, DataReproTest,
                         ::testing::Values("bytetransformer", "distca", "chunkflow", "skrull"));

// The mechanisms of the ByteTransformer comparison, row by row. Up to 384 tokens FasterTransformer's
// remove-padding mode runs its fused packed MHA: the same padding-free work as ByteTransformer, so the
// ratio is exactly 1; above, it rebuilds the padding for an unfused attention, so BT wins. FT without
// remove padding pads every row to max_len, so even batch 1 (one document, shorter than max_len) has
// padding to remove, while padding to the batch's longest (old_ratio) has none at batch 1.
TEST(ByteTransformerRepro, EachEnginePaysForWhatItPads) {
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto catalogs = io::LoadCatalogs({}).value();
  auto r = (*reg.Create("bytetransformer"))->Run(ReproEnv{&catalogs});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->details.size(), 32u);  // the README's 16 lengths x batch 16 and 1
  for (const auto& row : r->details) {
    const int max_len = row["max_len"].get<int>();
    if (max_len <= 384) {
      EXPECT_DOUBLE_EQ(row["ratio"].get<double>(), 1.0) << row.dump();
    } else {
      EXPECT_GT(row["ratio"].get<double>(), 1.05) << row.dump();
    }
    EXPECT_GT(row["ratio_vs_ft"].get<double>(), 1.0) << row.dump();
    EXPECT_GT(row["flops_ratio_vs_ft"].get<double>(), 1.3) << row.dump();  // mean length 0.6 max
    if (row["batch"] == 1) {
      EXPECT_DOUBLE_EQ(row["old_ratio"].get<double>(), 1.0) << row.dump();
    }
  }
}

}  // namespace
}  // namespace dlsim::repro
