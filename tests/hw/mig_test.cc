// MIG partitions: the legal A100 configurations, placements and what an instance gets. The A100
// here is built by hand with the numbers of data/catalog/gpus.yaml (A100-SXM4-80GB: MIG user
// guide profiles, placements from `nvidia-smi mig -lgipp`), so the test does not read files.
#include "dlsim/hw/mig.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

namespace dlsim::hw {
namespace {

GpuSpec A100() {
  GpuSpec g;
  g.name = "a100-sxm4-80gb";
  g.dense_peak[static_cast<int>(DType::kFp32)] = TFLOPS(19.5);
  g.dense_peak[static_cast<int>(DType::kFp16)] = TFLOPS(312);
  g.hbm_capacity = GiB(80);
  g.hbm_bandwidth = GBps(2039);
  g.sm_count = 108;
  g.l2_size = MiB(40);
  g.mig = {{"1g.10gb", 1, 1, 14, GiB(9.5), 7, {0, 1, 2, 3, 4, 5, 6}},
           {"1g.20gb", 1, 2, 14, GiB(19.5), 4, {0, 2, 4, 6}},
           {"2g.20gb", 2, 2, 28, GiB(19.5), 3, {0, 2, 4}},
           {"3g.40gb", 3, 4, 42, GiB(39.25), 2, {0, 4}},
           {"4g.40gb", 4, 4, 56, GiB(39.25), 1, {0}},
           {"7g.80gb", 7, 8, 98, GiB(79), 1, {0}}};
  return g;
}

const std::vector<std::string> kStandard = {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"};

TEST(MigPartition, TwelveMaximalA100Configurations) {
  const GpuSpec g = A100();
  auto all = EnumerateMigPartitions(g, {.profiles = kStandard});
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->size(), 37u);  // every legal non-empty multiset of 1g/2g/3g/4g/7g
  auto maximal = EnumerateMigPartitions(g, {.profiles = kStandard, .maximal_only = true});
  ASSERT_TRUE(maximal.ok());
  std::vector<std::string> names;
  for (const MigPartition& m : *maximal) names.push_back(m.name());
  const std::vector<std::string> expected = {
      "7g.80gb",           "4g.40gb+3g.40gb",     "4g.40gb+2g.20gb+1g.10gb",   "4g.40gb+3x1g.10gb",
      "2x3g.40gb",         "3g.40gb+2x2g.20gb",   "3g.40gb+2g.20gb+2x1g.10gb", "3g.40gb+4x1g.10gb",
      "3x2g.20gb+1g.10gb", "2x2g.20gb+3x1g.10gb", "2g.20gb+5x1g.10gb",         "7x1g.10gb"};
  EXPECT_EQ(names, expected);
}

// Brute force: every multiset of the standard profiles (counts up to 7 each) is legal exactly
// when some assignment of start slices is, checked here by trying all start combinations.
TEST(MigPartition, PlaceAgreesWithBruteForce) {
  const GpuSpec g = A100();
  auto legal = EnumerateMigPartitions(g, {.profiles = kStandard});
  ASSERT_TRUE(legal.ok());
  std::set<std::string> legal_names;
  for (const auto& m : *legal) legal_names.insert(m.name());
  int checked = 0;
  for (int a = 0; a <= 7; ++a)
    for (int b = 0; b <= 3; ++b)
      for (int c = 0; c <= 2; ++c)
        for (int d = 0; d <= 1; ++d)
          for (int e = 0; e <= 1; ++e) {
            std::vector<std::string> names;
            for (int i = 0; i < e; ++i) names.push_back("7g.80gb");
            for (int i = 0; i < d; ++i) names.push_back("4g.40gb");
            for (int i = 0; i < c; ++i) names.push_back("3g.40gb");
            for (int i = 0; i < b; ++i) names.push_back("2g.20gb");
            for (int i = 0; i < a; ++i) names.push_back("1g.10gb");
            if (names.empty()) continue;
            auto p = MigPartition::Place(g, names);
            ++checked;
            if (p.ok()) {
              EXPECT_TRUE(legal_names.count(p->name())) << p->name();
              auto again = MigPartition::FromInstances(g, p->instances());
              EXPECT_TRUE(again.ok()) << p->PlacementString();
            } else {
              EXPECT_EQ(p.error().code, ErrorCode::kInfeasible);
            }
          }
  EXPECT_EQ(checked, 8 * 4 * 3 * 2 * 2 - 1);
}

TEST(MigPartition, RejectsIllegalWithTheReason) {
  const GpuSpec g = A100();
  auto too_much_compute = MigPartition::Place(g, {"4g.40gb", "3g.40gb", "1g.10gb"});
  ASSERT_FALSE(too_much_compute.ok());
  EXPECT_EQ(too_much_compute.error().code, ErrorCode::kInfeasible);
  EXPECT_NE(too_much_compute.error().message.find("8 compute slices"), std::string::npos);
  auto too_many = MigPartition::Place(g, {"3g.40gb", "3g.40gb", "3g.40gb"});
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("at most 2"), std::string::npos);
  // On the A100 every multiset within 7 compute and 8 memory slices has a placement; a GPU
  // whose 4g.40gb took 3 compute slices would fit 4g + 2 x 2g by the sums, but 2g may only
  // start at 0, 2, 4 and 4g at 0.
  GpuSpec odd = g;
  odd.mig[4].compute_slices = 3;
  auto overlap = MigPartition::Place(odd, {"4g.40gb", "2g.20gb", "2g.20gb"});
  ASSERT_FALSE(overlap.ok());
  EXPECT_NE(overlap.error().message.find("overlapping"), std::string::npos) << overlap.error().message;
  auto unknown = MigPartition::Place(g, {"5g.50gb"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(unknown.error().message.find("known: 1g.10gb"), std::string::npos);
  auto bad_start = MigPartition::FromInstances(g, {{2, 1}});
  ASSERT_FALSE(bad_start.ok());
  EXPECT_NE(bad_start.error().message.find("allowed: {0,2,4}"), std::string::npos);
  auto clash = MigPartition::FromInstances(g, {{3, 0}, {2, 2}});
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.error().message.find("overlaps 3g.40gb at memory slice 2"), std::string::npos);
  GpuSpec no_mig = g;
  no_mig.mig.clear();
  EXPECT_FALSE(MigPartition::Place(no_mig, {"1g.10gb"}).ok());
  EXPECT_FALSE(EnumerateMigPartitions(no_mig).ok());
}

TEST(MigPartition, PlacementAndCounts) {
  const GpuSpec g = A100();
  auto p = MigPartition::Place(g, {"1g.10gb", "2g.20gb", "4g.40gb"});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->PlacementString(), "4g.40gb@0 2g.20gb@4 1g.10gb@6");
  EXPECT_EQ(p->compute_slices(), 7);
  EXPECT_EQ(p->memory_slices(), 7);
  EXPECT_EQ(p->counts(), (std::vector<int>{1, 0, 1, 0, 1, 0}));
  // With 1g.20gb allowed too, 3g + 2 x 1g.20gb is legal and maximal.
  auto with_big = EnumerateMigPartitions(g, {.maximal_only = true});
  ASSERT_TRUE(with_big.ok());
  EXPECT_TRUE(std::any_of(with_big->begin(), with_big->end(),
                          [](const MigPartition& m) { return m.name() == "3g.40gb+2x1g.20gb"; }));
}

TEST(MigInstanceSpec, SmsMemoryBandwidthAndL2) {
  const GpuSpec g = A100();
  EXPECT_EQ(MigModeSms(g), 98);  // 7 x 14, against 108 with MIG disabled
  const GpuSpec s = MigInstanceSpec(g, *g.FindMigProfile("3g.40gb"));
  EXPECT_EQ(s.sm_count, 42);
  EXPECT_DOUBLE_EQ(s.Peak(DType::kFp16).value(), TFLOPS(312).value() * 42 / 108);
  EXPECT_DOUBLE_EQ(s.hbm_bandwidth.value(), GBps(2039).value() / 2);  // 4 of 8 memory slices
  EXPECT_DOUBLE_EQ(s.l2_size.value(), MiB(20).value());
  EXPECT_DOUBLE_EQ(s.hbm_capacity.ToGiB(), 39.25);
  EXPECT_TRUE(s.mig.empty());
  EXPECT_EQ(s.name, "a100-sxm4-80gb/3g.40gb");
  const GpuSpec whole = MigInstanceSpec(g, *WholeGpuMigProfile(g));
  EXPECT_NEAR(whole.Peak(DType::kFp16).ToTFLOPS(), 312.0 * 98 / 108, 1e-9);
  EXPECT_DOUBLE_EQ(whole.hbm_bandwidth.value(), g.hbm_bandwidth.value());
}

}  // namespace
}  // namespace dlsim::hw
