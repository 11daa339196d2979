// Pollux: profile readers (located errors), the goodput model's closed forms, the policy's exact
// solver against brute force, and the engine end to end on the shipped profiles.
#include "dlsim/cluster/policies/pollux.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "dlsim/cluster/pollux_goodput.h"
#include "dlsim/cluster/pollux_profile.h"

namespace dlsim::cluster {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string AppFile(const std::string& app, const std::string& file) {
  return ReadFile(std::string(DLSIM_DATA_DIR) + "/traces/pollux/" + app + "/" + file);
}

// An application from the shipped profiles (the validation batch sizes listed by the caller).
PolluxApp LoadApp(const std::string& name, const std::vector<int>& batches) {
  PolluxAppTables t;
  t.placements = *ParsePolluxPlacements(AppFile(name, "placements.csv"), name + "/placements.csv");
  t.scalability = *ParsePolluxScalability(AppFile(name, "scalability.csv"), name + "/scalability.csv");
  for (int b : batches) {
    const std::string f = "validation-" + std::to_string(b) + ".csv";
    t.validation[b] = *ParsePolluxValidation(AppFile(name, f), name + "/" + f);
  }
  return *BuildPolluxApp(name, std::move(t), name);
}

const PolluxApp& Cifar() {
  static const PolluxApp* app = new PolluxApp(LoadApp("cifar10", {128, 256, 512, 1024, 2048, 4096}));
  return *app;
}

std::string PlacementsError(std::string_view text) {
  auto r = ParsePolluxPlacements(text, "p.csv");
  return r.ok() ? "(no error)" : r.error().message;
}

TEST(PolluxProfile, BadPlacementCellsNameFileLineAndColumn) {
  EXPECT_EQ(PlacementsError("placement,local_bsz,step_time,sync_time\n12,32,0.1,0.01\n1x,32,0.1,0.01\n"),
            "p.csv:3: column 'placement': expected replicas per node as digits 1-9 (e.g. '124'), found '1x'");
  EXPECT_EQ(PlacementsError("placement,local_bsz,step_time,sync_time\n1,-3,0.1,0.01\n"),
            "p.csv:2: column 'local_bsz': expected an integer in 1..10000000, found '-3'");
  EXPECT_EQ(PlacementsError("placement,local_bsz,step_time,sync_time\n1,32,0.1,0.2\n"),
            "p.csv:2: column 'sync_time': expected less than step_time 0.1, found 0.2");
  EXPECT_EQ(PlacementsError("placement,local_bsz,step_time\n1,32,0.1\n"),
            "p.csv: missing column 'sync_time'; the header has: placement,local_bsz,step_time");
  EXPECT_EQ(PlacementsError("placement,local_bsz,step_time,sync_time\n"), "p.csv: no rows");
}

TEST(PolluxProfile, BadScalabilityAndValidationRows) {
  auto s = ParsePolluxScalability("num_nodes,num_replicas,local_bsz,step_time,sync_time\n6,4,32,0.1,0.01\n",
                                  "s.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "s.csv:2: column 'num_replicas': expected an integer in 6..1000000, found '4'");
  auto v = ParsePolluxValidation("progress,iteration,metric,grad_sqr,grad_var\n10,10,0.5,1,1\n5,20,0.6,1,1\n",
                                 "validation-8.csv");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message,
            "validation-8.csv:3: column 'progress': expected at least 10 (the row before), found 5");
  auto nan = ParsePolluxValidation("progress,iteration,metric,grad_sqr,grad_var\n1,1,nan,1,1\n", "v.csv");
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.error().message.find("v.csv:2: column 'metric'"), std::string::npos);
  EXPECT_FALSE(PolluxValidationBatchSize("dir/validation-x.csv").ok());
  EXPECT_EQ(*PolluxValidationBatchSize("dir/validation-128.csv"), 128);
}

TEST(PolluxProfile, WorkloadErrorsAndJobs) {
  std::map<std::string, PolluxApp> apps{{"cifar10", Cifar()}};
  auto bad =
      ParsePolluxWorkload("name,time,application,num_replicas,batch_size\nj,0,resnet,1,128\n", "w.csv", apps);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("w.csv:2: column 'application': unknown Pollux application 'resnet'"),
            std::string::npos)
      << bad.error().message;
  auto neg = ParsePolluxWorkload("name,time,application,num_replicas,batch_size\nj,-1,cifar10,1,128\n",
                                 "w.csv", apps);
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.error().message, "w.csv:2: column 'time': expected a number in 0..1000000000, found '-1'");
  auto ok = ParsePolluxWorkload("name,time,application,num_replicas,batch_size\nc,53,cifar10,6,2048\n",
                                "w.csv", apps);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0].speed, "pollux:cifar10");
  EXPECT_DOUBLE_EQ((*ok)[0].work, Cifar().TotalWork());
  EXPECT_DOUBLE_EQ((*ok)[0].arrival.ToSeconds(), 53);
}

TEST(PolluxProfile, DefaultsAndEpochsFollowTheValidationRuns) {
  const PolluxApp& a = Cifar();
  EXPECT_EQ(a.init_batch_size, 128);
  EXPECT_EQ(a.max_batch_size, 4096);
  EXPECT_EQ(a.min_local_bsz, 32);
  EXPECT_EQ(a.max_local_bsz, 1024);
  EXPECT_EQ(a.max_epochs, 100);
  EXPECT_EQ(a.EpochAt(0), 0);
  EXPECT_EQ(a.EpochAt(a.ProgressAt(1)), 1);
  EXPECT_EQ(a.EpochAt(a.TotalWork()), a.max_epochs);
  // Between two validated batch sizes the statistics are linear in the batch size.
  const auto [s128, v128] = a.GradStats(128, 5);
  const auto [s256, v256] = a.GradStats(256, 5);
  const auto [s192, v192] = a.GradStats(192, 5);
  EXPECT_NEAR(s192, (s128 + s256) / 2, 1e-12);
  EXPECT_NEAR(v192, (v128 + v256) / 2, 1e-12);
}

TEST(PolluxGoodput, EfficiencyIsOneAtTheInitialBatchAndBelowScaleAbove) {
  const PolluxGoodput g(std::make_shared<PolluxApp>(Cifar()));
  for (int epoch : {0, 10, 50, 99}) {
    EXPECT_DOUBLE_EQ(g.Gain(128, epoch), 1.0);
    const double gain = g.Gain(1024, epoch);
    EXPECT_GE(gain, 1.0);
    EXPECT_LE(gain, 1024.0 / 128);
  }
}

TEST(PolluxGoodput, FitConvergesAndPredictsTheMeasuredSteps) {
  std::vector<PolluxStepSample> all = Cifar().tables.placements;
  const PolluxPerfParams p = FitPolluxPerfParams(all);
  const PolluxPerfParams longer = FitPolluxPerfParams(all, 12, 700);
  EXPECT_LT(PolluxFitObjective(p, all) - PolluxFitObjective(longer, all), 1e-4);
  EXPECT_GE(p.gamma, 1.0);
  EXPECT_LE(p.gamma, 10.0);
  // One replica of 128 samples: the fit is within 25% of the measurement.
  for (const PolluxStepSample& s : all) {
    if (s.placement == std::vector<int>{1} && s.local_bsz == 129) {
      EXPECT_NEAR(PolluxStepTimes(p, 1, 1, 129).second / s.step_time, 1.0, 0.25);
    }
  }
}

TEST(PolluxGoodput, MeasuredPlacementsInterpolateInTheLocalBatch) {
  const PolluxGoodput g(std::make_shared<PolluxApp>(Cifar()));
  double t32 = 0, t45 = 0;
  for (const PolluxStepSample& s : Cifar().tables.placements) {
    if (s.placement != std::vector<int>{1}) continue;
    if (s.local_bsz == 32) t32 = s.step_time;
    if (s.local_bsz == 45) t45 = s.step_time;
  }
  EXPECT_DOUBLE_EQ(g.StepSeconds({1}, {32, 0, 1}), t32);
  EXPECT_NEAR(g.StepSeconds({1}, {38, 0, 1}), t32 + (t45 - t32) * 6 / 13, 1e-12);
}

TEST(PolluxGoodput, GoodputGrowsWithReplicasWhereTheProfileScales) {
  const PolluxGoodput g(std::make_shared<PolluxApp>(Cifar()));
  // Within one node the measured cifar10 steps scale: more replicas, more goodput (late epoch,
  // where large batches are efficient).
  EXPECT_LT(g.Goodput({1}, 60), g.Goodput({2}, 60));
  EXPECT_LT(g.Goodput({2}, 60), g.Goodput({4}, 60));
  EXPECT_LT(g.Goodput({4}, 60), g.Goodput({4, 4}, 60));
  // More replicas than the largest batch can feed cannot run.
  EXPECT_EQ(g.ChooseBatch(32, 4096 / 32 + 1, 60).replicas, 0);
}

TEST(PolluxGoodput, FixedBatchFollowsUpdateLocalBsz) {
  PolluxApp ncf = LoadApp("ncf", {256, 512, 1024, 2048, 4096, 8192, 16384, 32768});
  std::map<std::string, PolluxApp> apps{{"ncf", ncf}};
  ApplyPolluxArtifactSettings(apps);
  const PolluxGoodput g(std::make_shared<PolluxApp>(apps.at("ncf")));
  // 32768 fits one micro-batch (max local 32768), but one replica accumulates at least twice.
  const PolluxBatch b = g.ChooseBatch(1, 1, 0);
  EXPECT_EQ(b.accum_steps, 1);
  EXPECT_EQ(b.atomic_bsz, 16384);
  EXPECT_EQ(g.ChooseBatch(1, 2, 0).replicas, 0);  // one replica at most
}

double BruteForce(const std::vector<std::vector<double>>& s, int gpus, std::vector<int>& counts, size_t j) {
  if (j == s.size()) return PolluxFitnessSum(s, counts);
  double best = 1e300;
  for (int c = 0; c < static_cast<int>(s[j].size()) && c <= gpus; ++c) {
    counts[j] = c;
    best = std::min(best, BruteForce(s, gpus - c, counts, j + 1));
  }
  counts[j] = 0;
  return best;
}

TEST(PolluxPolicy, ExactSolverMatchesBruteForce) {
  uint64_t x = 12345;
  auto next = [&] { return (x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 11; };
  for (int trial = 0; trial < 200; ++trial) {
    const int jobs = 2 + trial % 2;
    std::vector<std::vector<double>> s(jobs);
    for (auto& row : s) {
      row.assign(1 + next() % 9, 0.0);
      for (size_t c = 1; c < row.size(); ++c) row[c] = row[c - 1] + static_cast<double>(next() % 1000) / 4000;
    }
    std::vector<int> counts(jobs, 0);
    const double best = BruteForce(s, 8, counts, 0);
    const std::vector<int> got = SolvePolluxCounts(s, 8, std::vector<int>(jobs, 0));
    int used = 0;
    for (int c : got) used += c;
    EXPECT_LE(used, 8);
    EXPECT_NEAR(PolluxFitnessSum(s, got), best, 1e-12) << "trial " << trial;
  }
}

}  // namespace
}  // namespace dlsim::cluster
