// validate::Calibrate: constants used to make "measured" runs are recovered (closed form: the runs are
// dlsim's own predictions under known constants), the leave-one-out figure is then ~0, the automatic
// choice follows the one-per-two-runs rule, the memory overhead is recovered exactly, and bad requests
// are errors that name what is wrong. Also cost::Overlay and the recipes' state bytes.
#include "dlsim/validate/calibrate.h"

#include <gtest/gtest.h>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/train/prediction_interval.h"
#include "dlsim/train/simulate.h"

namespace dlsim::validate {
namespace {

catalog::Catalogs Shipped() {
  auto c = io::LoadCatalogs({});
  EXPECT_TRUE(c.ok());
  return *c;
}

// A small Llama-like model on one H100 at `tokens` per sequence and micro-batch `mb`.
train::TrainOptions SmallRun(int hidden, int seq, int mb) {
  train::TrainOptions o;
  o.model.name = "calib-test";
  o.model.layers = 8;
  o.model.hidden = hidden;
  o.model.heads = hidden / 128;
  o.model.kv_heads = o.model.heads;
  o.model.ffn_hidden = 4 * hidden;
  o.model.vocab = 32000;
  o.hardware.gpu = "h100-sxm5-80gb";
  o.hardware.gpus = 1;
  o.hardware.gpus_per_node = 1;
  o.training.seq_len = seq;
  o.training.micro_batch = mb;
  o.training.global_batch = mb;
  o.parallel.dp = 1;
  o.parallel.zero = 0;
  return o;
}

// Runs whose "measurements" are dlsim's predictions under `truth` laid over the shipped constants.
std::vector<CalibrationRun> Measured(const cost::TrainingCalibration& truth, double memory_offset_gib = 0) {
  catalog::Catalogs c = Shipped();
  c.training = cost::Overlay(c.training, truth);
  std::vector<CalibrationRun> runs;
  const int shapes[][3] = {{512, 512, 1},   {1024, 1024, 1}, {2048, 2048, 2},
                           {4096, 2048, 2}, {4096, 4096, 1}, {1024, 4096, 4}};
  for (const auto& s : shapes) {
    CalibrationRun r;
    r.label = "h" + std::to_string(s[0]) + "-s" + std::to_string(s[1]);
    r.options = SmallRun(s[0], s[1], s[2]);
    auto p = train::Simulate(r.options, c, nullptr);
    EXPECT_TRUE(p.ok() && p->feasible);
    r.step_time_s = p->step_time_s;
    r.peak_memory_gib = p->peak_memory.ToGiB() + memory_offset_gib;
    runs.push_back(r);
  }
  return runs;
}

cost::TrainingCalibration Truth(double gemm, double host_us) {
  cost::TrainingCalibration t;
  t.source = "truth";
  cost::ArchTrainingCalibration a;
  a.architecture = "hopper";
  a.gemm_max_efficiency = gemm;
  t.archs.push_back(a);
  t.layer_host_time = Seconds(host_us * 1e-6);
  return t;
}

TEST(Calibrate, RecoversTheConstantsThatMadeTheRuns) {
  const auto runs = Measured(Truth(0.55, 300));
  auto r = Calibrate(runs, Shipped(), {.constants = {"gemm", "host"}, .threads = 2});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->fitted.size(), 2u);
  EXPECT_EQ(r->architecture, "hopper");
  EXPECT_NEAR(r->fitted[0].value, 0.55, 0.01);
  EXPECT_NEAR(r->fitted[1].value, 300, 15);
  EXPECT_GT(r->mape_before, 5.0);  // the shipped constants are off: there was something to fit
  EXPECT_LT(r->mape_fitted, 0.5);
  EXPECT_LT(r->mape_held_out, 1.0);
  ASSERT_EQ(r->calibration.archs.size(), 1u);
  EXPECT_NEAR(*r->calibration.archs[0].gemm_max_efficiency, 0.55, 0.01);
  EXPECT_FALSE(r->calibration.archs[0].attention_efficiency.has_value());  // only what was fitted
  EXPECT_FALSE(r->calibration.memory_overhead.has_value());
  // The file's own interval: leave-one-run-out ratios of runs dlsim made itself are ~1.
  ASSERT_TRUE(r->calibration.interval.has_value());
  EXPECT_EQ(r->calibration.interval->architecture, "hopper");
  EXPECT_NEAR(r->calibration.interval->low, 1.0, 0.02);
  EXPECT_NEAR(r->calibration.interval->high, 1.0, 0.02);
  EXPECT_EQ(r->calibration.interval->runs, 6);
}

TEST(Calibrate, SameBitsWhateverTheThreadCount) {
  const auto runs = Measured(Truth(0.6, 200));
  auto one = Calibrate(runs, Shipped(), {.constants = {"gemm"}, .threads = 1});
  auto two = Calibrate(runs, Shipped(), {.constants = {"gemm"}, .threads = 2});
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(one->fitted[0].value, two->fitted[0].value);
  for (size_t i = 0; i < one->runs.size(); ++i) EXPECT_EQ(one->runs[i].held_out_s, two->runs[i].held_out_s);
}

TEST(Calibrate, ChoosesAtMostOneConstantPerTwoRunsAndFitsMemoryInClosedForm) {
  const auto runs = Measured(Truth(0.55, 300), /*memory_offset_gib=*/3.0);  // measured 3 GiB above dlsim
  auto r = Calibrate(runs, Shipped(), {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  size_t step = 0;
  for (const auto& f : r->fitted) step += f.name != "memory";
  EXPECT_EQ(step, runs.size() / 2);
  EXPECT_EQ(r->fitted[0].name, "memory");
  EXPECT_NEAR(r->fitted[0].value, 2.0 + 3.0, 1e-9);  // shipped 2 GiB framework overhead + the offset
  EXPECT_NEAR(*r->memory_mape_fitted, 0, 1e-9);
  EXPECT_NEAR(*r->memory_mape_held_out, 0, 1e-9);
  EXPECT_GT(*r->memory_mape_before, 1.0);
}

TEST(Calibrate, ScoreOnlyFitsNothing) {
  const auto runs = Measured(Truth(0.55, 300));
  auto r = Calibrate(runs, Shipped(), {.constants = {"none"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->fitted.empty());
  EXPECT_EQ(r->mape_before, r->mape_held_out);
}

TEST(Calibrate, RefusesWhatTheRunsCannotSupport) {
  const auto runs = Measured(Truth(0.55, 300));
  const std::vector<CalibrationRun> three(runs.begin(), runs.begin() + 3);
  auto r = Calibrate(three, Shipped(), {.constants = {"gemm", "host"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("3 runs support at most 1"), std::string::npos) << r.error().message;
  r = Calibrate({runs[0]}, Shipped(), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("at least 2 runs"), std::string::npos);
  r = Calibrate(runs, Shipped(), {.constants = {"gem"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("did you mean 'gemm'"), std::string::npos) << r.error().message;
  r = Calibrate(runs, Shipped(), {.constants = {"gemm", "gemm"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("named twice"), std::string::npos);
  std::vector<CalibrationRun> mixed = runs;
  mixed[2].options.hardware.gpu = "a100-sxm4-80gb";
  r = Calibrate(mixed, Shipped(), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(mixed[2].label + ": its GPU is ampere"), std::string::npos)
      << r.error().message;
  std::vector<CalibrationRun> no_memory = runs;
  for (auto& run : no_memory) run.peak_memory_gib.reset();
  r = Calibrate(no_memory, Shipped(), {.constants = {"memory"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("peak_memory_gib"), std::string::npos);
}

TEST(Calibrate, AnInfeasibleRunIsNamed) {
  auto runs = Measured(Truth(0.55, 300));
  runs[1].options.training.micro_batch = runs[1].options.training.global_batch = 4096;  // out of memory
  runs[1].peak_memory_gib.reset();
  auto r = Calibrate(runs, Shipped(), {.constants = {"gemm"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(runs[1].label + ": out of memory"), std::string::npos)
      << r.error().message;
}

TEST(TrainingCalibrationOverlay, ReplacesOnlyWhatTheOverlaySets) {
  const catalog::Catalogs c = Shipped();
  cost::TrainingCalibration over;
  over.source = "mine.yaml";
  cost::ArchTrainingCalibration a;
  a.architecture = "hopper";
  a.attention_efficiency = 0.5;
  over.archs.push_back(a);
  const cost::TrainingCalibration out = cost::Overlay(c.training, over);
  using A = cost::ArchTrainingCalibration;
  EXPECT_EQ(out.ArchValue("hopper", &A::attention_efficiency), 0.5);
  EXPECT_EQ(out.ArchValue("hopper", &A::fp8_gemm_max_efficiency),
            c.training.ArchValue("hopper", &A::fp8_gemm_max_efficiency));
  EXPECT_EQ(out.ArchValue("ampere", &A::gemm_max_efficiency),
            c.training.ArchValue("ampere", &A::gemm_max_efficiency));
  EXPECT_EQ(out.layer_host_time, c.training.layer_host_time);
  EXPECT_NE(out.source.find("mine.yaml"), std::string::npos);
}

// The recipes' model state per parameter (no ZeRO, one GPU): mixed 2 + 4 + 12, bf16 2 + 2 + 4, autocast
// (fp32 weights and their bf16 copies) 6 + 4 + 8.
TEST(Recipes, StateBytesPerParameter) {
  train::TrainingOptions t;
  auto total = [&](train::Recipe r) {
    t.recipe = r;
    const auto b = train::StateBytes(t);
    return b.weights + b.gradients + b.optimizer;
  };
  EXPECT_EQ(total(train::Recipe::kMixed), 18);
  EXPECT_EQ(total(train::Recipe::kBf16), 8);
  EXPECT_EQ(total(train::Recipe::kAutocast), 18);
  catalog::Catalogs c = Shipped();
  train::TrainOptions o = SmallRun(2048, 1024, 1);
  auto mixed = train::Simulate(o, c, nullptr);
  o.training.recipe = train::Recipe::kBf16;
  auto bf16 = train::Simulate(o, c, nullptr);
  ASSERT_TRUE(mixed.ok() && bf16.ok());
  const auto& m = mixed->memory[0];
  const auto& b = bf16->memory[0];
  EXPECT_NEAR(b.optimizer.ToBytes() / m.optimizer.ToBytes(), 4.0 / 12.0, 1e-9);
  EXPECT_NEAR(b.gradients.ToBytes() / m.gradients.ToBytes(), 2.0 / 4.0, 1e-9);
  EXPECT_LT(bf16->step_time_s, mixed->step_time_s);  // the bf16 AdamW step moves fewer bytes
}

// ScoreRuns: a runs file as a held-out set. Runs whose measurements are dlsim's own predictions score 0%,
// rows keep their scenarios (what CalibrateOnRows re-prices), and a run that does not simulate is an
// infeasible row with the reason, not an error.
TEST(ScoreRuns, PricesEveryRunAndKeepsItsScenario) {
  const catalog::Catalogs shipped = Shipped();
  std::vector<CalibrationRun> runs = Measured(cost::TrainingCalibration{});
  const ValidationSet exact = ScoreRuns("mine", "my runs", runs, shipped);
  EXPECT_EQ(exact.name, "mine");
  EXPECT_EQ(exact.source, "my runs");
  EXPECT_EQ(exact.metric, "step time (s)");
  EXPECT_EQ(exact.bound_pct, 0.0);
  ASSERT_EQ(exact.rows.size(), runs.size());
  EXPECT_NEAR(exact.Mape(), 0.0, 1e-9);
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(exact.rows[i].label, runs[i].label);
    ASSERT_NE(exact.rows[i].options, nullptr);
    EXPECT_EQ(exact.rows[i].options->model.hidden, runs[i].options.model.hidden);
  }
  runs[0].step_time_s *= 2;  // measured twice the prediction: -50%
  runs[1].options.hardware.gpu = "no-such-gpu";
  const ValidationSet scored = ScoreRuns("mine", "my runs", runs, shipped);
  EXPECT_NEAR(scored.rows[0].ErrorPct(), -50.0, 1e-9);
  EXPECT_FALSE(scored.rows[1].feasible);
  EXPECT_NE(scored.rows[1].note.find("no-such-gpu"), std::string::npos) << scored.rows[1].note;
}

}  // namespace
}  // namespace dlsim::validate

namespace dlsim::train {
namespace {

// The regime of a scenario decides its interval: the shipped table's fitted-stack interval for a
// Megatron-like H100 run, the held-out (other-stack) one for torchtitan, MoE or a plain-PyTorch recipe, the
// measured-stack one for a stack carrying kernel rates measured on the GPU's architecture that its rows ran,
// a widened and flagged one on a GPU no validation set has or for a stack no set ran, and a user
// calibration's own for its architecture.
TEST(PredictionInterval, RegimeFollowsTheScenario) {
  auto c = io::LoadCatalogs({});
  ASSERT_TRUE(c.ok());
  const cost::IntervalRegime* fitted = c->intervals.Find("fitted-stack");
  const cost::IntervalRegime* other = c->intervals.Find("other-stack");
  ASSERT_TRUE(fitted && other);
  EXPECT_LT(fitted->low, 1.0);
  EXPECT_GT(fitted->high, 1.0);
  TrainOptions o;
  auto at = [&](const std::string& arch) { return IntervalOf(o, arch, 2.0, c->intervals, c->training); };
  auto i = at("hopper");
  ASSERT_TRUE(i.has_value());
  EXPECT_EQ(i->regime, "fitted-stack");
  EXPECT_DOUBLE_EQ(i->low_s, 2.0 * fitted->low);
  EXPECT_DOUBLE_EQ(i->high_s, 2.0 * fitted->high);
  o.training.stack = "torchtitan-2024.12";
  EXPECT_EQ(at("hopper")->regime, "other-stack");
  o.training.stack = "nemo-24.07";
  EXPECT_EQ(at("hopper")->regime, "fitted-stack");
  EXPECT_EQ(at("blackwell")->regime, "other-stack");  // no Blackwell constant is fitted
  // A MoE model has the MoE sets' own regime on any validated architecture, whatever its stack.
  const cost::IntervalRegime* moe = c->intervals.Find("moe");
  ASSERT_NE(moe, nullptr);
  o.model.moe.experts = 8;
  EXPECT_EQ(at("hopper")->regime, "moe");
  EXPECT_EQ(at("blackwell")->regime, "moe");
  EXPECT_DOUBLE_EQ(at("hopper")->high_s, 2.0 * moe->high);
  EXPECT_EQ(moe->low, 1.0);  // every MoE row of the held-out sets is priced too fast (docs/validation.md)
  EXPECT_TRUE(at("volta")->outside);
  o.model.moe.experts = 0;
  o.training.recipe = Recipe::kAutocast;
  EXPECT_EQ(at("hopper")->regime, "other-stack");
  // A stack that carries kernel rates measured for the GPU's architecture has its own regime.
  o.training.stack = "pytorch-eager-autocast";
  o.training.stack_calibration.push_back({.architecture = "hopper", .elementwise_efficiency = 0.46});
  const cost::IntervalRegime* measured = c->intervals.Find("measured-stack");
  ASSERT_NE(measured, nullptr);
  EXPECT_EQ(at("hopper")->regime, "measured-stack");
  EXPECT_DOUBLE_EQ(at("hopper")->low_s, 2.0 * measured->low);
  EXPECT_EQ(at("ampere")->regime, "other-stack");  // no rate measured for its architecture
  // The regime lists the stacks its rows ran: the eager stacks are in it, and a stack with measured rates
  // that no validation set ran (a compiled stack) is outside, widened and flagged.
  EXPECT_EQ(measured->stacks, (std::vector<std::string>{"pytorch-eager-autocast", "pytorch-eager-bf16"}));
  o.training.stack = "pytorch-eager-bf16";
  EXPECT_EQ(at("hopper")->regime, "measured-stack");
  o.training.stack = "pytorch-compile-bf16";
  EXPECT_EQ(at("hopper")->regime, "outside");
  EXPECT_TRUE(at("hopper")->outside);
  EXPECT_GT(at("hopper")->high_s, 2.0 * other->high);
  o.training.stack = "nemo-24.07";
  o.training.stack_calibration.clear();
  o.training.recipe = Recipe::kMixed;
  o.model.moe.experts = 8;
  EXPECT_EQ(at("hopper")->regime, "moe");  // not fitted-stack: no MoE row is fitted on
  o.model.moe.experts = 0;
  auto outside = at("volta");
  EXPECT_TRUE(outside->outside);
  EXPECT_LT(outside->low_s, 2.0 * other->low + 1e-12);
  EXPECT_GT(outside->high_s, 2.0 * other->high);
  cost::TrainingCalibration mine = c->training;
  mine.interval = cost::CalibratedInterval{"hopper", 0.9, 1.2, 5};
  auto cal = IntervalOf(o, "hopper", 2.0, c->intervals, mine);
  EXPECT_EQ(cal->regime, "calibrated");
  EXPECT_DOUBLE_EQ(cal->high_s, 2.4);
  EXPECT_EQ(IntervalOf(o, "ampere", 2.0, c->intervals, mine)->regime,
            "fitted-stack");  // not its architecture
}

// Simulate attaches the interval around the prediction it makes.
TEST(PredictionInterval, SimulateAttachesIt) {
  auto c = io::LoadCatalogs({});
  ASSERT_TRUE(c.ok());
  TrainOptions o;
  o.hardware.gpus = 8;
  o.model.layers = 4;
  o.model.hidden = 2048;
  o.model.heads = 16;
  o.model.kv_heads = 16;
  o.model.ffn_hidden = 8192;
  o.model.vocab = 32000;
  o.model.name = "interval-test";
  o.parallel.dp = 8;
  auto r = Simulate(o, *c, nullptr);
  ASSERT_TRUE(r.ok() && r->interval.has_value());
  EXPECT_LT(r->interval->low_s, r->step_time_s);
  EXPECT_GT(r->interval->high_s, r->step_time_s);
  // So is the peak memory's: the shipped `memory` regime around the predicted peak, in GiB.
  const cost::IntervalRegime* memory = c->intervals.Find("memory");
  ASSERT_NE(memory, nullptr);
  ASSERT_TRUE(r->memory_interval.has_value());
  const double peak = r->peak_memory.ToGiB();
  EXPECT_DOUBLE_EQ(r->memory_interval->low_gib, peak * memory->low);
  EXPECT_DOUBLE_EQ(r->memory_interval->high_gib, peak * memory->high);
  EXPECT_LT(r->memory_interval->low_gib, peak);
  EXPECT_GT(r->memory_interval->high_gib, peak);
  EXPECT_FALSE(MemoryIntervalOf(0.0, c->intervals).has_value());
  EXPECT_FALSE(MemoryIntervalOf(peak, cost::PredictionIntervals{}).has_value());
}

}  // namespace
}  // namespace dlsim::train
