// Adding a cluster policy takes its own file and one registry line (docs/design/architecture.md,
// "Adding a published system"): the toy policy below, with its own key, is the whole change. Also
// the policy-owned keys of the builtins (cluster/policy_params.h).
#include <gtest/gtest.h>

#include <memory>

#include "cluster/cluster_test_util.h"
#include "dlsim/cluster/policies/goldminer.h"
#include "dlsim/cluster/policies/tiresias.h"
#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {
namespace {

// The toy: the largest GPU demand first (`toy_descending: false`: the smallest first), FIFO among
// equals, non-preemptive with backfill.
const ParamSpec kDescending = FlagKey("toy_descending", true, "toy: largest demand first");

class LargestFirst final : public SchedulingPolicy {
 public:
  explicit LargestFirst(bool descending) : sign_(descending ? -1 : 1) {}
  bool Preemptive() const override { return false; }
  bool StaticKeys() const override { return true; }
  Priority Key(const JobSpec& job, const JobProgress&, TimePoint) const override {
    return {sign_ * job.gpus, job.arrival.ToSeconds()};
  }

 private:
  double sign_;
};

// j1 (1 GPU, 10 s) and j2 (2 GPUs, 5 s) at t=0, j3 (1 GPU, 2 s) at t=1, on one 2-GPU node.
ClusterResult RunToy(bool descending) {
  PolicyRegistry reg("cluster-policy");
  RegisterBuiltinPolicies(reg);
  reg.RegisterBuiltin(
      "largest-first", "toy",
      [](const PolicyParams& p) { return std::make_unique<LargestFirst>(p.own.Flag(kDescending)); },
      {kDescending});  // the one registry line
  ClusterOptions o;
  o.cluster = cluster_test::Nodes(1, 2);
  o.jobs = {cluster_test::Job(1, 0, 1, 10), cluster_test::Job(2, 0, 2, 5), cluster_test::Job(3, 1, 1, 2)};
  o.policy = "largest-first";
  if (!descending) o.policy_params.own.Set("toy_descending", false);
  Result<std::unique_ptr<SchedulingPolicy>> policy = reg.Create(o.policy, o.policy_params);
  EXPECT_TRUE(policy.ok());
  o.custom_policy = std::shared_ptr<const SchedulingPolicy>(std::move(*policy));
  return cluster_test::RunCluster(o);
}

TEST(ToyPolicy, OneFileAndOneRegistryLineAddAPolicyWithItsOwnKey) {
  // Largest first: j2 0-5; at 5 j1 and j3 (equal demand, arrival order) 5-15 and 5-7.
  auto jct = cluster_test::Jct(RunToy(true));
  EXPECT_DOUBLE_EQ(jct[1], 15);
  EXPECT_DOUBLE_EQ(jct[2], 5);
  EXPECT_DOUBLE_EQ(jct[3], 6);
  // Smallest first (its own key set): j1 0-10, j3 backfills 1-3, j2 10-15.
  jct = cluster_test::Jct(RunToy(false));
  EXPECT_DOUBLE_EQ(jct[1], 10);
  EXPECT_DOUBLE_EQ(jct[2], 15);
  EXPECT_DOUBLE_EQ(jct[3], 2);
}

TEST(PolicyKeys, EachBuiltinOwnsItsKeysAndSharedOnesAreListedOnce) {
  const PolicyRegistry& reg = BuiltinPolicies();
  EXPECT_TRUE(reg.Keys("fifo").empty());
  ASSERT_EQ(reg.Keys("goldminer").size(), 2u);
  EXPECT_EQ(reg.Keys("goldminer")[0].key, "goldminer_worker_cores");
  int switch_keys = 0;
  for (const ParamSpec& s : reg.AllKeys()) switch_keys += s.key == "switch_s";
  EXPECT_EQ(switch_keys, 1);  // easyscale, easyscale-homogeneous and easyscale-fixed share it
  EXPECT_EQ(reg.AllKeys().size(), 9u);
}

TEST(PolicyKeys, UnsetKeysTakeTheSpecDefaultAndSetOnesTheirValue) {
  ParamSet set;
  EXPECT_DOUBLE_EQ(GoldMinerParams::From(set).worker_cores, 1);
  EXPECT_FALSE(GoldMinerParams::From(set).equal_split);
  EXPECT_EQ(TiresiasParams::From(set).queue_thresholds, std::vector<double>{3200});
  set.Set("goldminer_worker_cores", 4.0);
  set.Set("queue_thresholds", std::vector<double>{10, 100});
  EXPECT_DOUBLE_EQ(GoldMinerParams::From(set).worker_cores, 4);
  EXPECT_EQ(TiresiasParams::From(set).queue_thresholds, (std::vector<double>{10, 100}));
}

TEST(PolicyKeys, CheckParamRefusesWrongKindsRangesChoicesAndOrder) {
  const ParamSpec cores = NumberKey("goldminer_worker_cores", 1, 0.001, 1e4, "");
  EXPECT_FALSE(CheckParam(cores, 2.0).has_value());
  EXPECT_EQ(*CheckParam(cores, 0.0), "expected a number in [0.001, 10000], found 0");
  EXPECT_TRUE(CheckParam(cores, true).has_value());
  const ParamSpec reclaim = TextKey("reclaim", "least-cost", {"least-cost", "random"}, "");
  EXPECT_EQ(*CheckParam(reclaim, std::string("oldest")), "expected 'least-cost' or 'random', found 'oldest'");
  const ParamSpec q = IncreasingListKey("queue_thresholds", {3200}, 1e15, "");
  EXPECT_EQ(*CheckParam(q, std::vector<double>{5, 5}),
            "expected strictly increasing thresholds, found 5 after 5 (entry 2 of 2)");
  EXPECT_TRUE(CheckParam(q, std::vector<double>{0}).has_value());  // (0, 1e15]
}

}  // namespace
}  // namespace dlsim::cluster
