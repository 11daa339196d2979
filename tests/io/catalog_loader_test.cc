// The embedded catalogs (data/catalog/*.yaml), user overrides and bad catalog files.
#include "dlsim/io/catalog_loader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace dlsim::io {
namespace {

class EmbeddedCatalogTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto r = LoadCatalogs({});
    ASSERT_TRUE(r.ok()) << r.error().message;
    cat_ = new Catalogs(std::move(r).value());
  }
  static void TearDownTestSuite() { delete cat_; }
  const hw::GpuSpec& Gpu(const std::string& name) {
    auto r = cat_->hardware.FindGpu(name);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return **r;
  }
  static Catalogs* cat_;
};
Catalogs* EmbeddedCatalogTest::cat_ = nullptr;

TEST_F(EmbeddedCatalogTest, AllElevenGpusWithSaneNumbers) {
  const std::vector<std::string> names = {"v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb",
                                          "h100-sxm5-80gb", "h200-sxm-141gb", "b200-sxm-180gb",
                                          "l4-24gb",        "l40s-48gb",      "a10-24gb",
                                          "t4-16gb",        "h100-hbm2e-96gb"};
  for (const auto& n : names) {
    const hw::GpuSpec& g = Gpu(n);
    EXPECT_EQ(g.name, n);
    EXPECT_GT(g.Peak(hw::DType::kFp32).ToTFLOPS(), 5) << n;
    EXPECT_LT(g.Peak(hw::DType::kFp32).ToTFLOPS(), 100) << n;
    EXPECT_GE(g.Peak(hw::DType::kFp16), g.Peak(hw::DType::kFp32)) << n;
    EXPECT_GE(g.hbm_capacity.ToGiB(), 16) << n;
    EXPECT_GE(g.hbm_bandwidth.ToGBps(), 300) << n;
    EXPECT_GT(g.sm_count, 0) << n;
    EXPECT_GT(g.power_watts, 0) << n;
    EXPECT_FALSE(g.source.empty()) << n;
  }
  EXPECT_EQ(cat_->hardware.GpuNames().size(), names.size());
}

TEST_F(EmbeddedCatalogTest, KeyDatasheetNumbers) {
  const hw::GpuSpec& h100 = Gpu("h100");
  EXPECT_EQ(h100.name, "h100-sxm5-80gb");
  EXPECT_NEAR(h100.Peak(hw::DType::kBf16).ToTFLOPS(), 989, 1);  // dense, not the 1979 sparse figure
  EXPECT_NEAR(h100.Peak(hw::DType::kFp8).ToTFLOPS(), 1979, 1);
  EXPECT_NEAR(h100.hbm_bandwidth.ToGBps(), 3350, 1);
  EXPECT_NEAR(h100.nvlink_bandwidth.ToGBps(), 450, 1e-9);  // 900 GB/s bidirectional
  EXPECT_DOUBLE_EQ(h100.hbm_capacity.ToGiB(), 80);
  EXPECT_EQ(h100.sm_count, 132);
  EXPECT_TRUE(h100.nvls);
  EXPECT_NEAR(h100.PcieBandwidth().ToGBps(), 63.0, 0.1);
  const hw::GpuSpec& a100 = Gpu("a100");
  EXPECT_EQ(a100.name, "a100-sxm4-80gb");
  EXPECT_DOUBLE_EQ(a100.Peak(hw::DType::kBf16).ToTFLOPS(), 312);
  EXPECT_EQ(a100.Peak(hw::DType::kFp8).value(), 0);
  EXPECT_FALSE(a100.nvls);
  EXPECT_EQ(Gpu("a100-40gb").name, "a100-sxm4-40gb");
  EXPECT_EQ(Gpu("v100").Peak(hw::DType::kBf16).value(), 0);
  EXPECT_EQ(Gpu("t4").nvlink_bandwidth.value(), 0);
  EXPECT_NEAR(Gpu("b200").Peak(hw::DType::kBf16).ToTFLOPS(), 2250, 1);
  EXPECT_NEAR(Gpu("h200").hbm_bandwidth.ToGBps(), 4800, 1);
}

TEST_F(EmbeddedCatalogTest, MigProfiles) {
  const hw::GpuSpec& a100 = Gpu("a100-sxm4-80gb");
  ASSERT_EQ(a100.mig.size(), 6u);
  EXPECT_EQ(a100.mig.front().name, "1g.10gb");
  EXPECT_EQ(a100.mig.front().max_instances, 7);
  EXPECT_EQ(a100.mig.front().start_slices, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  const hw::MigProfile* full = a100.FindMigProfile("7g.80gb");
  ASSERT_NE(full, nullptr);
  EXPECT_EQ(full->max_instances, 1);
  EXPECT_EQ(full->compute_slices, 7);
  EXPECT_EQ(full->memory_slices, 8);
  EXPECT_EQ(full->sms, 98);
  const hw::MigProfile* three = a100.FindMigProfile("3g.40gb");
  ASSERT_NE(three, nullptr);
  EXPECT_EQ(three->start_slices, (std::vector<int>{0, 4}));
  EXPECT_NEAR(three->memory.ToGiB(), 39.25, 1e-9);
  EXPECT_EQ(Gpu("a100-sxm4-40gb").mig.front().name, "1g.5gb");
  EXPECT_EQ(Gpu("h100").FindMigProfile("1g.10gb")->sms, 16);
  EXPECT_EQ(Gpu("h200").FindMigProfile("7g.141gb")->sms, 132);
  EXPECT_TRUE(Gpu("l40s").mig.empty());
}

TEST_F(EmbeddedCatalogTest, NodesAndNetworks) {
  for (const char* n : {"dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "pcie-8x-l40s"}) {
    auto node = cat_->hardware.FindNode(n);
    ASSERT_TRUE(node.ok()) << node.error().message;
    EXPECT_EQ((*node)->gpus_per_node, 8);
    EXPECT_TRUE(cat_->hardware.FindGpu((*node)->gpu).ok()) << n;
    EXPECT_TRUE(cat_->hardware.FindNetwork((*node)->network).ok()) << n;
  }
  const hw::NodeSpec& h = **cat_->hardware.FindNode("dgx-h100");
  EXPECT_EQ(h.gpu, "h100-sxm5-80gb");
  EXPECT_EQ(h.fabric, hw::IntraNodeFabric::kNvSwitch);
  EXPECT_NEAR(h.nic_bandwidth.ToGbps(), 400, 1e-9);
  EXPECT_EQ(h.nics_per_node, 8);
  EXPECT_EQ((*cat_->hardware.FindNode("pcie-server"))->fabric, hw::IntraNodeFabric::kPcie);
  for (const char* n : {"ib-hdr", "ib-ndr", "ib-xdr", "roce-400g"}) {
    EXPECT_TRUE(cat_->hardware.FindNetwork(n).ok()) << n;
  }
  EXPECT_NEAR((*cat_->hardware.FindNetwork("ib-xdr"))->link_bandwidth.ToGbps(), 800, 1e-9);
  EXPECT_TRUE(cat_->hardware.CheckReferences().ok());
}

TEST_F(EmbeddedCatalogTest, ModelParameterCounts) {
  struct Case {
    const char* name;
    double params;
    double tolerance;
  };
  for (Case c :
       {Case{"llama2-7b", 6.74e9, 0.005}, Case{"llama2-13b", 13.0e9, 0.01}, Case{"llama2-70b", 68.98e9, 0.01},
        Case{"llama3-8b", 8.03e9, 0.005}, Case{"llama3-70b", 70.6e9, 0.005},
        Case{"llama3.1-405b", 405.9e9, 0.01}, Case{"gpt3-175b", 175e9, 0.01},
        Case{"qwen2.5-7b", 7.62e9, 0.01}, Case{"qwen2.5-72b", 72.7e9, 0.01}, Case{"bert-large", 335e6, 0.02},
        Case{"qwen2.5-0.5b", 0.494e9, 0.01}, Case{"gpt-1t", 1008e9, 0.01}, Case{"gpt-145.6b", 145.6e9, 0.01},
        Case{"opt-30b", 30e9, 0.02}, Case{"opt-66b", 66e9, 0.02}, Case{"opt-175b", 175e9, 0.02}}) {
    auto m = cat_->models.Find(c.name);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_NEAR((*m)->ParameterCount() / c.params, 1.0, c.tolerance)
        << c.name << ": " << (*m)->ParameterCount();
  }
}

TEST_F(EmbeddedCatalogTest, RequiredModelNamesExist) {
  for (const char* n :
       {"gpt3-125m", "gpt3-350m", "gpt3-760m", "gpt3-1.3b", "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b", "gpt3-175b",
        "gpt-1.7b", "gpt-18.4b", "gpt-529.6b", "korthikanti-22b", "korthikanti-530b", "llama2-13b",
        "llama2-70b", "qwen2.5-32b", "bert-base", "nemotron-340b"}) {
    auto m = cat_->models.Find(n);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_TRUE((*m)->Validate().ok()) << n;
  }
  const model::ModelSpec& l3 = **cat_->models.Find("llama3-70b");
  EXPECT_EQ(l3.kv_heads, 8);
  EXPECT_TRUE(l3.gated_mlp);
  EXPECT_FALSE(l3.tied_embeddings);
  EXPECT_EQ((*cat_->models.Find("bert-base"))->arch, model::Arch::kEncoder);
  EXPECT_EQ((*cat_->models.Find("gpt3-13b"))->hidden, 5120);
}

// --- user files ---------------------------------------------------------------------------------

Status Merge(const std::string& yaml, Catalogs& cat) { return MergeCatalogText(yaml, "user.yaml", cat); }

Catalogs Embedded() {
  auto r = LoadCatalogs({});
  EXPECT_TRUE(r.ok());
  return std::move(r).value();
}

TEST(CatalogFileTest, OverrideKeepsOtherFields) {
  Catalogs cat = Embedded();
  ASSERT_TRUE(Merge("gpus:\n  - name: h100\n    memory_bandwidth_gb_per_s: 4000\n", cat).ok());
  const hw::GpuSpec& g = **cat.hardware.FindGpu("h100-sxm5-80gb");
  EXPECT_NEAR(g.hbm_bandwidth.ToGBps(), 4000, 1e-9);
  EXPECT_NEAR(g.Peak(hw::DType::kBf16).ToTFLOPS(), 989.4, 1e-9);  // untouched
  EXPECT_EQ(g.mig.size(), 6u);
  EXPECT_EQ(g.aliases, (std::vector<std::string>{"h100", "h100-sxm"}));
}

TEST(CatalogFileTest, AddsGpuNodeAndModel) {
  Catalogs cat = Embedded();
  const std::string yaml = R"(gpus:
  - name: my-gpu
    aliases: [mine]
    dense_tflops: {fp32: 50, bf16: 500}
    memory_gib: 96
    memory_bandwidth_gb_per_s: 4000
    sm_count: 100
nodes:
  - name: my-box
    gpu: mine
    gpus_per_node: 4
    fabric: nvswitch
    intra_gb_per_s: 400
    network: ndr
models:
  - name: tiny
    layers: 2
    hidden: 256
    heads: 4
    vocab: 1000
)";
  Status st = Merge(yaml, cat);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_NEAR((*cat.hardware.FindGpu("mine"))->Peak(hw::DType::kBf16).ToTFLOPS(), 500, 1e-9);
  EXPECT_EQ((*cat.hardware.FindGpu("mine"))->Peak(hw::DType::kFp8).value(), 0);
  const hw::NodeSpec& n = **cat.hardware.FindNode("my-box");
  EXPECT_EQ(n.gpu, "my-gpu");  // made canonical
  EXPECT_EQ(n.network, "ib-ndr");
  const model::ModelSpec& m = **cat.models.Find("tiny");
  EXPECT_EQ(m.kv_heads, 4);       // default: heads
  EXPECT_EQ(m.ffn_hidden, 1024);  // default: 4 x hidden
}

// The SM clocks: the H200 ships its sustained full-load bound (1830 MHz, under its 1980 maximum); a user file
// may give another part one, which must not exceed that part's maximum (an error at the key, the part
// unchanged).
TEST(CatalogFileTest, SustainedSmClockIsAtMostTheMaximum) {
  Catalogs cat = Embedded();
  const hw::GpuSpec& h200 = **cat.hardware.FindGpu("h200");
  EXPECT_EQ(h200.max_sm_clock_mhz, 1980);
  EXPECT_EQ(h200.sustained_sm_clock_mhz, 1830);
  EXPECT_EQ((*cat.hardware.FindGpu("b200"))->sustained_sm_clock_mhz, 0);  // no source: the maximum stands
  ASSERT_TRUE(Merge("gpus:\n  - name: h100\n    sustained_sm_clock_mhz: 1755\n", cat).ok());
  EXPECT_EQ((*cat.hardware.FindGpu("h100-sxm5-80gb"))->sustained_sm_clock_mhz, 1755);
  const Status above = Merge("gpus:\n  - name: h100\n    sustained_sm_clock_mhz: 2000\n", cat);
  ASSERT_FALSE(above.ok());
  EXPECT_NE(above.error().message.find("user.yaml:3:29: gpus[0].sustained_sm_clock_mhz: expected at most "
                                       "max_sm_clock_mhz (1980 MHz)"),
            std::string::npos)
      << above.error().message;
  EXPECT_EQ((*cat.hardware.FindGpu("h100-sxm5-80gb"))->sustained_sm_clock_mhz, 1755);
}

// sustained_fraction scales the rate the compute models price with, per type, and leaves the peak (MFU's
// convention) alone; a type it does not name keeps its whole peak.
TEST(CatalogFileTest, SustainedFractionScalesThePricedRateNotThePeak) {
  Catalogs cat = Embedded();
  ASSERT_TRUE(Merge("gpus:\n  - name: h100\n    sustained_fraction: {bf16: 0.5}\n", cat).ok());
  const hw::GpuSpec& g = **cat.hardware.FindGpu("h100-sxm5-80gb");
  EXPECT_NEAR(g.Peak(hw::DType::kBf16).ToTFLOPS(), 989.4, 1e-9);
  EXPECT_NEAR(g.SustainedPeak(hw::DType::kBf16).ToTFLOPS(), 494.7, 1e-9);
  EXPECT_NEAR(g.SustainedPeak(hw::DType::kFp8).ToTFLOPS(), g.Peak(hw::DType::kFp8).ToTFLOPS(), 1e-9);
  EXPECT_NEAR(g.SustainedPeak(hw::DType::kFp16).ToTFLOPS(), 989.4, 1e-9);
  const hw::GpuSpec& plain = **cat.hardware.FindGpu("a100-sxm4-80gb");
  EXPECT_EQ(plain.SustainedPeak(hw::DType::kBf16).value(), plain.Peak(hw::DType::kBf16).value());
}

// The Grand Teton H100's sustained bf16 share is the mean data/calibration/h100_hbm2e_sustained.csv derives
// from the AsyncTP post's measured steps (scripts/derive-sustained-fraction.py), each of its three runs
// within 0.03 of it; fp16 shares it and FP8, which no run measured, keeps its whole peak.
TEST(CatalogFileTest, GrandTetonSustainedShareIsTheDerivedOne) {
  const Catalogs cat = Embedded();
  const hw::GpuSpec& g = **cat.hardware.FindGpu("h100-hbm2e-96gb");
  const double share = g.sustained_fraction[static_cast<int>(hw::DType::kBf16)];
  EXPECT_EQ(g.sustained_fraction[static_cast<int>(hw::DType::kFp16)], share);
  EXPECT_EQ(g.sustained_fraction[static_cast<int>(hw::DType::kFp8)], 0.0);
  std::ifstream f(std::string(DLSIM_DATA_DIR) + "/calibration/h100_hbm2e_sustained.csv");
  ASSERT_TRUE(f) << "data/calibration/h100_hbm2e_sustained.csv";
  std::string line;
  int runs = 0, means = 0;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("local_batch,", 0) == 0) continue;
    std::vector<std::string> cells;
    size_t at = 0;
    for (size_t next; (next = line.find(',', at)) != std::string::npos; at = next + 1)
      cells.push_back(line.substr(at, next - at));
    cells.push_back(line.substr(at));
    ASSERT_GE(cells.size(), 5u) << line;
    if (cells[0] == "mean") {
      EXPECT_NEAR(std::stod(cells[4]), share, 5e-4);
      ++means;
    } else {
      EXPECT_NEAR(std::stod(cells[4]), share, 0.03) << line;
      ++runs;
    }
  }
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(means, 1);
}

TEST(CatalogFileTest, ExampleFileInDocsLoads) {
  auto r = LoadCatalogs({std::string(DLSIM_DATA_DIR) + "/../docs/examples/my-gpu.yaml"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->hardware.FindGpu("my-gpu-96gb").ok());
  EXPECT_TRUE(r->hardware.FindNode("my-gpu-node").ok());
}

struct BadCase {
  const char* name;
  const char* yaml;
  std::vector<std::string> expect;  // substrings of the message
};

class BadCatalogTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadCatalogTest, ErrorNamesFileLineKeyAndFix) {
  Catalogs cat = Embedded();
  Status st = Merge(GetParam().yaml, cat);
  ASSERT_FALSE(st.ok());
  for (const auto& s : GetParam().expect) {
    EXPECT_NE(st.error().message.find(s), std::string::npos) << "missing '" << s << "' in:\n"
                                                             << st.error().message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadCatalogTest,
    ::testing::Values(
        BadCase{"UnknownKeySuggests",
                "gpus:\n  - name: h100\n    memory_bandwith_gb_per_s: 4000\n",
                {"user.yaml:3:5", "gpus[0].memory_bandwith_gb_per_s", "unknown key",
                 "did you mean 'memory_bandwidth_gb_per_s'"}},
        BadCase{"WrongType",
                "gpus:\n  - name: h100\n    sm_count: many\n",
                {"user.yaml:3:15", "gpus[0].sm_count", "found 'many'"}},
        BadCase{"NegativeValue",
                "networks:\n  - name: ib-ndr\n    link_gbps: -1\n",
                {"user.yaml:3", "networks[0].link_gbps"}},
        // 0 was listed as allowed ("0 or 0.001..") and then refused at the entry, not the key.
        BadCase{"ZeroNetworkLink",
                "networks:\n  - name: ib-ndr\n    link_gbps: 0\n",
                {"user.yaml:3:16: networks[0].link_gbps: expected a number, found '0'; allowed: "
                 "0.001..10000000"}},
        BadCase{"ZeroIntraNodeBandwidth",
                "nodes:\n  - name: dgx-a100\n    intra_gb_per_s: 0\n",
                {"user.yaml:3:21: nodes[0].intra_gb_per_s: expected a positive bandwidth, found 0; allowed: "
                 "0.001..10000000 (0 only for a node of one GPU; this one has 8)"}},
        BadCase{"UnknownTopKey",
                "gpu:\n  - name: h100\n",
                {"user.yaml:1:1", "unknown key 'gpu'", "did you mean 'gpus'"}},
        BadCase{"MissingRequiredKeyForNewGpu",
                "gpus:\n  - name: new-gpu\n    dense_tflops: {fp32: 10}\n",
                {"gpus[0]", "memory_gib"}},
        BadCase{"BadEnum",
                "nodes:\n  - name: dgx-h100\n    fabric: nvswich\n",
                {"user.yaml:3", "nodes[0].fabric", "did you mean 'nvswitch'", "nvlink-pairwise"}},
        BadCase{"UnknownGpuInNode",
                "nodes:\n  - name: dgx-h100\n    gpu: h1000\n",
                {"user.yaml:3", "nodes[0].gpu", "unknown GPU 'h1000'", "did you mean"}},
        BadCase{"MigTooManySms",
                "gpus:\n  - name: a100\n    mig:\n      - {name: x, compute_slices: 1, memory_slices: 1, "
                "sms: 500, memory_gib: 10, max_instances: 1, start_slices: [0]}\n",
                {"user.yaml:2", "gpus[0]", "sms must be 1..108"}},
        BadCase{"ModelShapeInconsistent",
                "models:\n  - name: llama2-7b\n    heads: 30\n",
                {"user.yaml:2", "models[0]", "hidden 4096 is not divisible by heads 30"}},
        BadCase{"SustainedFractionAboveOne",
                "gpus:\n  - name: h100\n    sustained_fraction: {bf16: 1.5}\n",
                {"user.yaml:3", "gpus[0].sustained_fraction.bf16", "0.05..1"}},
        BadCase{"SustainedFractionUnknownType",
                "gpus:\n  - name: h100\n    sustained_fraction: {bf61: 0.5}\n",
                {"user.yaml:3", "sustained_fraction", "did you mean 'bf16'"}},
        BadCase{"NotAList", "gpus: {name: h100}\n", {"user.yaml:1", "gpus", "a list of mappings"}},
        BadCase{"MissingName", "models:\n  - layers: 2\n", {"models[0]", "name"}},
        BadCase{"SyntaxError", "gpus:\n  - name: [h100\n", {"user.yaml"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(CatalogFileTest, MissingFileIsNotFound) {
  auto r = LoadCatalogs({"/nonexistent/catalog.yaml"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_NE(r.error().message.find("/nonexistent/catalog.yaml"), std::string::npos);
}

TEST(CatalogFileTest, FileErrorsNameThePath) {
  const std::string path = ::testing::TempDir() + "/bad_catalog.yaml";
  std::ofstream(path) << "# comment\nmodels:\n  - name: llama3-8b\n    layer: 3\n";
  auto r = LoadCatalogs({path});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(path + ":4:5"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("did you mean 'layers'"), std::string::npos) << r.error().message;
}

// A --calibration file's kernel rates reach `compute` (what serve prices with) as well as the training
// layer; without one, `compute` is the embedded kernel-level file, untouched by the embedded training
// calibration.
TEST(CatalogFileTest, CalibrationFilesReachTheKernelConstants) {
  auto plain = LoadCatalogs({});
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  const cost::ArchCalibration* hopper = plain->compute.FindArchOrNull("hopper");
  ASSERT_NE(hopper, nullptr);
  EXPECT_EQ(hopper->memory.efficiency, 1.0);  // data/calibration/compute.yaml
  const std::string path = ::testing::TempDir() + "/eager_stack.yaml";
  std::ofstream(path) << "architectures:\n  hopper:\n    elementwise_efficiency: 0.5452\n";
  auto r = LoadCatalogs({}, {path});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const cost::ArchCalibration* over = r->compute.FindArchOrNull("hopper");
  ASSERT_NE(over, nullptr);
  EXPECT_EQ(over->memory.efficiency, 0.5452);
  EXPECT_EQ(over->memory.norm_efficiency, hopper->memory.norm_efficiency);  // only what the file sets
  EXPECT_EQ(r->training.ArchValue("hopper", &cost::ArchTrainingCalibration::elementwise_efficiency), 0.5452);
}

}  // namespace
}  // namespace dlsim::io
