// MIG-serving's controller (serve/mig_transition.h): every step keeps each service at or above its
// floor, the end state is the target deployment, and a needed swap without room is refused.
#include "dlsim/serve/mig/mig_transition.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::Env;

MigServingProblem Problem(double scale) {
  DnnModelRegistry models("dnn-model");
  RegisterDnnModels(models, Env().catalogs.models);
  const hw::GpuSpec& a100 = *Env().catalogs.hardware.FindGpu("a100-sxm4-80gb").value();
  std::vector<MigService> services = {{"resnet", "resnet50", 1.0, Millis(50)},
                                      {"bert", "bert-base", 1.0, Millis(50)},
                                      {"large", "bert-large", 1.0, Millis(100)}};
  auto unit = MakeMigServingProblem(a100, services, models, Env().catalogs.compute).value();
  for (size_t s = 0; s < services.size(); ++s) services[s].demand_rps = scale * unit.whole_gpu_throughput[s];
  return MakeMigServingProblem(a100, services, models, Env().catalogs.compute).value();
}

MigDeployment Solve(const MigServingProblem& p, const char* name) {
  MigOptimizerRegistry reg("mig-optimizer");
  RegisterMigOptimizers(reg);
  return (*reg.Create(name, {}))->Optimize(p).value();
}

std::vector<GpuConfig> Sorted(std::vector<GpuConfig> v) {
  auto key = [](const GpuConfig& c) { return std::make_pair(c.partition, c.service); };
  std::sort(v.begin(), v.end(), [&](const GpuConfig& a, const GpuConfig& b) { return key(a) < key(b); });
  return v;
}

TEST(MigTransition, IdenticalDeploymentsNeedNoStep) {
  const MigServingProblem p = Problem(1.3);
  const MigDeployment d = Solve(p, "greedy");
  auto t = PlanMigTransition(p, d, d, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->steps.empty());
  EXPECT_EQ(t->kept, static_cast<int>(d.gpus.size()));
  EXPECT_EQ(t->total, Duration::Zero());
}

// Demand grows from 0.7 to 2.1 whole GPUs per service (and shrinks back): every intermediate state
// serves each service at least min(what the old deployment served, the new demand); the GPUs left
// running are the target's; the time adds up the steps.
TEST(MigTransition, EveryStepKeepsTheFloorAndEndsAtTheTarget) {
  for (const auto& [a, b] : {std::pair{0.7, 2.1}, std::pair{2.1, 0.7}}) {
    const MigServingProblem from_p = Problem(a), to_p = Problem(b);
    const MigDeployment from = Solve(from_p, "greedy"), to = Solve(to_p, "ga");
    auto t = PlanMigTransition(to_p, from, to, {});
    ASSERT_TRUE(t.ok()) << t.error().message;
    Duration sum;
    std::vector<GpuConfig> running = from.gpus;
    for (const MigTransitionStep& s : t->steps) {
      for (size_t m = 0; m < s.served.size(); ++m) EXPECT_GE(s.served[m], t->floor[m] * (1 - 1e-9)) << a;
      sum += s.time;
      if (s.kind == MigTransitionStep::Kind::kAddGpu) running.push_back(s.after);
      if (s.kind != MigTransitionStep::Kind::kAddGpu) running[s.gpu] = s.after;
    }
    running.erase(std::remove(running.begin(), running.end(), GpuConfig{}), running.end());
    EXPECT_EQ(Sorted(running), Sorted(to.gpus)) << a << " -> " << b;
    EXPECT_EQ(sum, t->total);
    EXPECT_LE(t->peak_gpus, static_cast<int>(std::max(from.gpus.size(), to.gpus.size())) + 1);
    EXPECT_TRUE(MeetsDemand(to_p, t->steps.empty() ? Served(to_p, from.gpus) : t->steps.back().served));
  }
}

// A whole GPU serving a service whose demand is what one 7g instance serves cannot be repartitioned
// in place (the GPU serves nothing meanwhile): 1 -> 1 GPU needs a spare, which is built first and
// the old GPU released; 1 -> 2 GPUs adds the first target beside it, then exchanges the old one.
TEST(MigTransition, SwapWithoutRoomNeedsASpareGpu) {
  MigServingProblem p = Problem(1.0);
  p.services.resize(1);
  p.throughput.resize(1);
  p.batch.resize(1);
  p.whole_gpu_throughput.resize(1);
  int seven = -1;  // the partition with one 7g instance
  for (size_t i = 0; i < p.partitions.size(); ++i)
    if (p.partitions[i].size() == 1) seven = static_cast<int>(i);
  ASSERT_GE(seven, 0);
  p.services[0].demand_rps = p.throughput[0][p.partitions[seven].instances()[0].profile];
  ASSERT_LT(p.services[0].demand_rps, p.whole_gpu_throughput[0]);  // 98 SMs against 108
  const MigDeployment from{{GpuConfig{-1, {0}}}, {}, 0};
  const MigDeployment to1{{GpuConfig{seven, {0}}}, {}, 0};
  auto stuck = PlanMigTransition(p, from, to1, {.spare_gpus = 0});
  ASSERT_FALSE(stuck.ok());
  EXPECT_EQ(stuck.error().code, ErrorCode::kInfeasible);
  EXPECT_NE(stuck.error().message.find("0 spare GPU(s)"), std::string::npos) << stuck.error().message;
  auto spared = PlanMigTransition(p, from, to1, {.spare_gpus = 1});
  ASSERT_TRUE(spared.ok()) << spared.error().message;
  ASSERT_EQ(spared->steps.size(), 2u);
  EXPECT_EQ(spared->steps[0].kind, MigTransitionStep::Kind::kAddGpu);
  EXPECT_EQ(spared->steps[1].kind, MigTransitionStep::Kind::kReleaseGpu);
  EXPECT_EQ(spared->peak_gpus, 2);
  EXPECT_EQ(spared->total, Seconds(6) + Seconds(20) + Seconds(2));
  const MigDeployment to2{{GpuConfig{seven, {0}}, GpuConfig{seven, {0}}}, {}, 0};
  auto grow = PlanMigTransition(p, from, to2, {.spare_gpus = 0});
  ASSERT_TRUE(grow.ok()) << grow.error().message;
  ASSERT_EQ(grow->steps.size(), 2u);
  EXPECT_EQ(grow->steps[0].kind, MigTransitionStep::Kind::kAddGpu);
  EXPECT_EQ(grow->steps[1].kind, MigTransitionStep::Kind::kExchange);
  EXPECT_EQ(grow->steps[1].time, Seconds(2) + Seconds(6) + Seconds(20));  // drain, repartition, load
}

TEST(MigTransition, ForeignConfigurationIsAnError) {
  const MigServingProblem p = Problem(1.0);
  const MigDeployment bad{{GpuConfig{100000, {0}}}, {}, 0};
  auto t = PlanMigTransition(p, bad, bad, {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace dlsim::serve
