// dlsim's step beside a profiled one: the rows' arithmetic in closed form on a synthetic trace, the real
// trimmed H200 trace beside its own scenario (no structural note; dlsim's rows add up to its step) and beside
// a different one (each difference named), and a result without a step.
#include "dlsim/validate/trace_compare.h"

#include <gtest/gtest.h>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kineto_trace.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/train/simulate.h"

namespace dlsim::validate {
namespace {

const std::string kDir = std::string(DLSIM_TEST_DATA_DIR) + "/traces/";

TracedOp Op(const std::string& name, double gpu_us, const std::string& kernel = "") {
  TracedOp op;
  op.name = name;
  op.gpu_us = gpu_us;
  op.kernels = 1;
  op.first_kernel = kernel;
  return op;
}

catalog::Catalogs Shipped() {
  auto c = io::LoadCatalogs({});
  EXPECT_TRUE(c.ok());
  return std::move(*c);
}

double Row(const TraceComparison& c, const std::string& name, bool trace) {
  for (const CompareRow& r : c.rows)
    if (r.name == name) return trace ? r.trace_ms : r.dlsim_ms;
  ADD_FAILURE() << "no row " << name;
  return 0;
}

TEST(TraceCompare, RowsInClosedForm) {
  ProfiledStep s;
  s.file = "synthetic.json";
  s.device = "NVIDIA H200";
  s.ops = {Op("aten::mm", 100),
           Op("aten::_cudnn_attention_forward", 40),
           Op("aten::_cudnn_attention_backward", 10),
           Op("aten::mul", 20),
           Op("aten::_fused_rms_norm", 10),
           Op("aten::_log_softmax", 5),
           Op("aten::_fused_adamw_", 30),
           Op("record_param_comms", 7, "ncclDevKernel_AllReduce"),
           Op("aten::embedding", 2)};
  s.unlinked_gpu_us = 3;
  s.gpu_busy_us = 250;
  s.gpu_span_us = 300;
  train::StepResult r;
  r.step_time_s = 0.4e-3;
  r.breakdown = {.compute_s = 0.3e-3,
                 .gemm_s = 0.15e-3,
                 .attention_s = 0.05e-3,
                 .memory_s = 0.05e-3,
                 .host_wait_s = 0.02e-3,
                 .tp_comm_s = 0.01e-3,
                 .pp_bubble_s = 0.03e-3,
                 .dp_comm_s = 0.02e-3,
                 .optimizer_s = 0.04e-3,
                 .cast_s = 0.01e-3};  // autocast's casts: priced with the optimizer, traced in the passes
  train::TrainOptions o;
  o.hardware.gpu = "h200";
  const TraceComparison c = CompareWithTrace(s, o, r, Shipped().hardware);
  ASSERT_EQ(c.rows.size(), 8u);
  const std::vector<std::tuple<std::string, double, double>> want = {
      {"gemm", 0.100, 0.15},          {"attention", 0.050, 0.05},
      {"memory-bound", 0.035, 0.06},  {"optimizer", 0.030, 0.03},
      {"communication", 0.010, 0.03}, {"other kernels", 0.002, 0.03},
      {"GPU idle", 0.050, 0.05},      {"step", 0.300, 0.4}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(c.rows[i].name, std::get<0>(want[i]));
    EXPECT_NEAR(c.rows[i].trace_ms, std::get<1>(want[i]), 1e-12) << c.rows[i].name;
    EXPECT_NEAR(c.rows[i].dlsim_ms, std::get<2>(want[i]), 1e-12) << c.rows[i].name;
  }
  EXPECT_NEAR(*c.rows[0].DiffPct(), 50.0, 1e-9);
  EXPECT_TRUE(c.notes.empty()) << c.notes.front();
  EXPECT_NE(c.largest.find("gemm"), std::string::npos) << c.largest;  // +0.05 ms
  EXPECT_NE(c.largest.find("slower"), std::string::npos) << c.largest;
}

struct Simulated {
  train::TrainOptions options;
  train::StepResult result;
};

Simulated SimulateScenario(const catalog::Catalogs& cat) {
  auto o = io::LoadTrainScenarioFile(kDir + "llama-3.2-1b_amp_2x2048.yaml", cat.hardware, cat.models);
  EXPECT_TRUE(o.ok()) << o.error().message;
  auto r = train::Simulate(*o, cat, nullptr);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return {*o, *r};
}

TEST(TraceCompare, TheRealTraceBesideItsScenario) {
  const catalog::Catalogs cat = Shipped();
  auto s = io::ReadKinetoTrace(kDir + "llama-3.2-1b_amp_2x2048.trimmed.json.gz");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const Simulated sim = SimulateScenario(cat);
  const TraceComparison c = CompareWithTrace(*s, sim.options, sim.result, cat.hardware);
  ASSERT_EQ(c.rows.size(), 8u);
  EXPECT_TRUE(c.notes.empty()) << c.notes.front();  // one H200, 16 layers x 1 micro-batch, no recomputation
  EXPECT_NEAR(Row(c, "step", true), s->gpu_span_us / 1e3, 1e-9);
  EXPECT_NEAR(Row(c, "step", false), 1e3 * sim.result.step_time_s, 1e-9);
  double dlsim = 0;  // the categories and idle add up to dlsim's step
  for (size_t i = 0; i + 1 < c.rows.size(); ++i) dlsim += c.rows[i].dlsim_ms;
  EXPECT_NEAR(dlsim, Row(c, "step", false), 1e-6 * dlsim);
  EXPECT_GT(Row(c, "gemm", true), 0);
  EXPECT_GT(Row(c, "attention", true), 0);
  EXPECT_GT(Row(c, "memory-bound", true), 0);
  // An autocast step: its casts leave dlsim's optimizer row for the memory-bound one, where the trace has
  // them.
  const train::Breakdown& b = sim.result.breakdown;
  EXPECT_GT(b.cast_s, 0.1 * b.optimizer_s);
  EXPECT_NEAR(Row(c, "optimizer", false), 1e3 * (b.optimizer_s - b.cast_s), 1e-9);
  EXPECT_NEAR(Row(c, "memory-bound", false), 1e3 * (b.memory_s + b.cast_s), 1e-9);
  EXPECT_FALSE(c.largest.empty());
}

TEST(TraceCompare, StructuralDifferencesAreNamed) {
  const catalog::Catalogs cat = Shipped();
  auto s = io::ReadKinetoTrace(kDir + "llama-3.2-1b_amp_2x2048.trimmed.json.gz");
  ASSERT_TRUE(s.ok()) << s.error().message;
  Simulated sim = SimulateScenario(cat);  // then told it ran on an H100, recomputing, in two micro-batches
  sim.options.hardware.gpu = "h100";
  sim.options.parallel.recompute = train::Recompute::kFull;
  sim.result.plan.micro_batches = 2;
  const TraceComparison c = CompareWithTrace(*s, sim.options, sim.result, cat.hardware);
  ASSERT_EQ(c.notes.size(), 3u);
  EXPECT_NE(c.notes[0].find("the scenario on h100"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[1].find("16 layer backward passes"), std::string::npos) << c.notes[1];
  EXPECT_NE(c.notes[1].find("prices 32"), std::string::npos) << c.notes[1];
  EXPECT_NE(c.notes[2].find("recompute: full"), std::string::npos) << c.notes[2];
}

TEST(TraceCompare, NoStepNoRows) {
  ProfiledStep s;
  train::StepResult r;
  r.reason = "layout does not divide";
  const TraceComparison c = CompareWithTrace(s, train::TrainOptions{}, r, Shipped().hardware);
  EXPECT_TRUE(c.rows.empty());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("layout does not divide"), std::string::npos);
}

}  // namespace
}  // namespace dlsim::validate
