#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "dlsim/io/multitask_workload.h"
#include "multitask/context.h"

namespace dlsim::multitask {
namespace {

Result<std::vector<MultitaskOptions>> Parse(const std::string& yaml) {
  return io::ParseMultitaskWorkloads(yaml, "w.yaml", testing::Cat().hardware, testing::Cat().models);
}

constexpr const char* kOne = R"(
name: two-tasks
source: test
hardware: {node: dgx-a100, gpus: 16, intra_gb_per_s: 200}
training: {recompute: selective}
placement: in_order
modules:
  - {name: vit, model: {layers: 4, hidden: 512, heads: 8, arch: encoder}}
  - {name: llm, model: {name: llama2-7b, layers: 2, vocab: 1000}}
  - {name: head, head: {hidden: 4096, out_features: 1000, norm: rmsnorm}}
tasks:
  - name: caption
    batch: 16
    stages:
      - {name: image, module: vit, tokens: 256}
      - {name: text, module: llm, tokens: 300}
      - {name: loss, module: head, tokens: 300}
  - name: text
    batch: 8
    stages:
      - {name: text, module: llm, tokens: 1024}
)";

TEST(MultitaskReader, ReadsAWorkload) {
  auto r = Parse(kOne);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  const MultitaskOptions& o = (*r)[0];
  EXPECT_EQ(o.workload.name, "two-tasks");
  EXPECT_EQ(o.hardware.gpus, 16);
  EXPECT_EQ(o.hardware.gpu, "a100-sxm4-80gb");
  EXPECT_EQ(o.intra_gb_per_s, 200);
  EXPECT_EQ(o.pricing.recompute, train::Recompute::kSelective);
  EXPECT_EQ(o.placement, Placement::kInOrder);
  ASSERT_EQ(o.workload.modules.size(), 3u);
  EXPECT_EQ(o.workload.modules[0].shape.ffn_hidden, 2048);  // 4 x hidden by default
  EXPECT_EQ(o.workload.modules[1].shape.layers, 2);
  EXPECT_EQ(o.workload.modules[1].shape.hidden, 4096);  // from the catalog entry
  EXPECT_EQ(o.workload.modules[2].kind, ModuleKind::kHead);
  EXPECT_EQ(o.workload.modules[2].shape.vocab, 1000);
  EXPECT_EQ(o.workload.tasks[1].stages[0].tokens, 1024);
  EXPECT_FALSE(o.workload.tasks[0].stages[1].after.has_value());
}

TEST(MultitaskReader, ErrorsNameTheKey) {
  std::string bad = kOne;
  bad.replace(bad.find("tokens: 256"), 11, "tokens: 0");
  auto r = Parse(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("w.yaml:15:"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("tokens"), std::string::npos);

  bad = kOne;
  bad.replace(bad.find("module: head"), 12, "module: hed");
  r = Parse(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown module 'hed'"), std::string::npos) << r.error().message;

  bad = kOne;
  bad.replace(bad.find("layers: 4, "), 11, "");
  r = Parse(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("needs 'layers'"), std::string::npos) << r.error().message;

  bad = kOne;
  bad.replace(bad.find("batch: 8"), 8, "batch: 8\n    epochs: 2");
  r = Parse(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown key 'epochs'"), std::string::npos) << r.error().message;
}

// The Spindle zoo parses, and every workload in it contracts and runs.
TEST(MultitaskReader, ReadsTheSpindleZoo) {
  std::ifstream f(std::string(DLSIM_DATA_DIR) + "/repro/spindle_zoo.yaml");
  std::stringstream text;
  text << f.rdbuf();
  auto r = Parse(text.str());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->size(), 6u);
  for (const MultitaskOptions& o : *r) {
    EXPECT_TRUE(Contract(o.workload).ok()) << o.workload.name;
    EXPECT_EQ(o.intra_gb_per_s, 200);
  }
}

}  // namespace
}  // namespace dlsim::multitask
