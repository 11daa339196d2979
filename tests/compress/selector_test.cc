// The selectors: Espresso's greedy against brute force on tiny models, its bubble removal and CPU
// offload, the baselines, and the input readers' errors.
#include "dlsim/studies/compress/selector.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace dlsim::compress {
namespace {

std::string ReadData(const std::string& name) {
  std::ifstream in(std::string(DLSIM_DATA_DIR) + "/compress/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

GradientTensor Tensor(double elements, double gap_ms) {
  GradientTensor t;
  t.name = "t" + std::to_string(static_cast<long long>(elements));
  t.elements = elements;
  t.backward_gap = Millis(gap_ms);
  return t;
}

// The flat options only (a small tree brute force can cover for three tensors).
OptionTree FlatTree() {
  OptionTree tree = EnumerateOptions(), flat;
  for (const Option& o : tree.options)
    if (!o.hierarchical) flat.options.push_back(o);
  return flat;
}

struct Fixture {
  Fixture(std::vector<GradientTensor> t, const char* compressor, const char* bed, OptionTree tr)
      : tensors(std::move(t)), tree(std::move(tr)) {
    comp = *ParseCompressorCsv(ReadData("compressors.csv"), "compressors.csv", compressor);
    testbed = *ParseTestbedCsv(ReadData("testbeds.csv"), "testbeds.csv", bed);
    net::CollectiveRegistry reg("collective-model");
    net::RegisterCollectiveModels(reg);
    auto created = reg.Create("ideal", net::NetworkCalibration{});
    model = std::move(*created);
    cost = std::make_unique<CostModel>(testbed, comp, *model);
    ev = std::make_unique<Evaluator>(Problem{&tensors, &tree, cost.get()});
  }
  Selection Select(const std::string& name) {
    SelectorRegistry reg("compression-selector");
    RegisterSelectors(reg);
    auto s = (*reg.Create(name))->Select(*ev);
    EXPECT_TRUE(s.ok()) << s.error().message;
    return *s;
  }
  std::vector<GradientTensor> tensors;
  OptionTree tree;
  CompressorSpec comp;
  Testbed testbed;
  std::unique_ptr<net::CollectiveModel> model;
  std::unique_ptr<CostModel> cost;
  std::unique_ptr<Evaluator> ev;
};

TEST(Espresso, MatchesBruteForceOnTinyModels) {
  for (const char* compressor : {"efsignsgd", "randomk", "dgc"}) {
    Fixture f({Tensor(4e6, 0), Tensor(2e4, 3), Tensor(9e6, 20)}, compressor, "pcie-25g", FlatTree());
    const Selection brute = f.Select("brute-force");
    const Selection esp = f.Select("espresso");
    EXPECT_LE(brute.timeline.iteration, esp.timeline.iteration);
    EXPECT_LE(esp.timeline.iteration.ToSeconds(), 1.02 * brute.timeline.iteration.ToSeconds()) << compressor;
    EXPECT_LT(esp.evaluations, brute.evaluations / 10);
  }
}

TEST(Espresso, NeverLosesToItsStartOrToTheBaselines) {
  auto lstm = ParseTensorCsv(ReadData("espresso_tensors.csv"), "espresso_tensors.csv", "lstm");
  ASSERT_TRUE(lstm.ok()) << lstm.error().message;
  Fixture f(*lstm, "efsignsgd", "pcie-25g", EnumerateOptions());
  const Duration fp32 = f.Select("fp32").timeline.iteration;
  const Duration hipress = f.Select("hipress").timeline.iteration;
  const Duration gpu = f.Select("espresso-gpu").timeline.iteration;
  const Duration esp = f.Select("espresso").timeline.iteration;
  EXPECT_LT(hipress, fp32);
  EXPECT_LT(gpu, hipress);
  EXPECT_LE(esp, gpu);
}

TEST(Espresso, DoesNotCompressTensorsBeforeTheLastBubble) {
  // t0 communicates long before t1's gradient is ready (1 s of compute): a bubble before t1, so
  // compressing t0 gains nothing and Espresso leaves it; HiPress compresses it anyway.
  Fixture f({Tensor(5e7, 0), Tensor(5e7, 1000)}, "efsignsgd", "pcie-25g", EnumerateOptions());
  const Selection esp = f.Select("espresso");
  EXPECT_FALSE(f.tree.options[esp.options[0]].Compresses());
  EXPECT_TRUE(f.tree.options[esp.options[1]].Compresses());
  EXPECT_TRUE(f.tree.options[f.Select("hipress").options[0]].Compresses());
}

TEST(Espresso, OffloadsToTheCpuWhenTheGpuIsTheBottleneck) {
  // Compute-bound with a slow GPU compressor (DGC) and cheap CPU compression: offloading the tensors
  // farthest from the output moves compression off the backward pass.
  Fixture f({Tensor(8e6, 0), Tensor(8e6, 40), Tensor(8e6, 40), Tensor(8e6, 40)}, "dgc", "pcie-25g",
            EnumerateOptions());
  f.comp.cpu.compress.rate = GBps(1000);
  f.comp.cpu.decompress.rate = GBps(1000);
  f.cost = std::make_unique<CostModel>(f.testbed, f.comp, *f.model);
  f.ev = std::make_unique<Evaluator>(Problem{&f.tensors, &f.tree, f.cost.get()});
  const Selection gpu = f.Select("espresso-gpu");
  const Selection esp = f.Select("espresso");
  int cpu = 0;
  for (int o : esp.options) cpu += f.tree.options[o].UsesCpu();
  EXPECT_GT(cpu, 0);
  EXPECT_LT(esp.timeline.iteration, gpu.timeline.iteration);
}

TEST(Inputs, BadRowsAreErrorsWithTheirPlace) {
  const std::string header =
      "name,ratio,device,comp_floor_us,comp_rate_gbps,decomp_floor_us,decomp_rate_gbps\n";
  auto bad = ParseCompressorCsv(header + "x,1.5,gpu,1,1,1,1\nx,0.5,cpu,1,1,1,1\n", "c.csv", "x");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("c.csv:2"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("ratio"), std::string::npos);
  auto one = ParseCompressorCsv(header + "x,0.5,gpu,1,1,1,1\n", "c.csv", "x");
  ASSERT_FALSE(one.ok());
  auto unknown = ParseTensorCsv(ReadData("espresso_tensors.csv"), "t.csv", "resnet");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("lstm"), std::string::npos) << unknown.error().message;
  auto gap = ParseTensorCsv("model,index,name,elements,gap_us\nm,0,a,10,-1\n", "t.csv", "m");
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.error().message.find("t.csv:2"), std::string::npos);
  auto bed = ParseTestbedCsv(ReadData("testbeds.csv"), "b.csv", "pcie-25g");
  ASSERT_TRUE(bed.ok());
  EXPECT_EQ(bed->gpus(), 64);
}

}  // namespace
}  // namespace dlsim::compress
