// Multimodal models (model/multimodal.h): parameter counts of the catalog entries against the published
// totals and against the modules counted by hand, FLOPs per sample in closed form, tokens per image, shape
// rules and the catalog's multimodal_models section.
#include "dlsim/model/multimodal.h"

#include <gtest/gtest.h>

#include <cmath>

#include "dlsim/io/catalog_loader.h"

namespace dlsim::model {
namespace {

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* const cat = new catalog::Catalogs(io::LoadCatalogs({}).value());
  return *cat;
}

const MultimodalSpec& Find(const char* name) { return *Cat().multimodal.Find(name).value(); }

// |x - published| within half a unit of the published rounding (e.g. 8.29B: 0.005B).
void ExpectRoundsTo(double x, double published, double half_unit) {
  EXPECT_LE(std::abs(x - published), half_unit) << x << " vs published " << published;
}

TEST(MultimodalCatalogTest, Qwen25Vl7bMatchesTheConfigAndThePublishedTotal) {
  const MultimodalSpec& m = Find("qwen2.5-vl-7b");
  EXPECT_EQ(m.llm_name, "qwen2.5-7b");
  const VisionEncoderSpec& v = m.vision;
  // The vision tower Step1X-Edit builds on: 32 layers, hidden 1280, patch 14, 2 x 2 merge, windows.
  EXPECT_EQ(v.layers, 32);
  EXPECT_EQ(v.hidden, 1280);
  EXPECT_EQ(v.patch_size, 14);
  EXPECT_EQ(m.projector.spatial_merge, 2);
  EXPECT_EQ(v.WindowPatches(), 64);  // 112 px windows = 8 x 8 patches
  EXPECT_EQ(v.FullAttentionLayers(), 4);
  EXPECT_TRUE(v.IsFullAttentionLayer(31));
  EXPECT_FALSE(v.IsFullAttentionLayer(30));
  EXPECT_EQ(v.PatchesPerImage(), 1024);  // 448 / 14 = 32 per side
  EXPECT_EQ(m.LlmTokensPerImage(), 256);
  // By hand: a block = qkv 1280 x 3840 + 3840, proj 1280^2 + 1280, gate/up 2 x (1280 x 3420 + 3420),
  // down 3420 x 1280 + 1280, two RMSNorms = 19,702,200; 32 of them; patch conv 3 x 2 x 14 x 14 x 1280.
  EXPECT_EQ(v.LayerParameters(), 19702200.0);
  EXPECT_EQ(v.ParameterCount(), 32 * 19702200.0 + 1505280.0);
  // PatchMerger: RMSNorm(1280), Linear(5120, 5120) + bias, Linear(5120, 3584) + bias.
  EXPECT_EQ(m.ProjectorParameters(), 1280 + 5120.0 * 5120 + 5120 + 5120.0 * 3584 + 3584);
  EXPECT_EQ(m.llm.ParameterCount(), 7615616512.0);      // Qwen2.5-7B
  EXPECT_EQ(m.ParameterCount(), 8292166656.0);          // the bf16 checkpoint: 16,584,333,312 bytes
  ExpectRoundsTo(m.ParameterCount(), 8.29e9, 0.005e9);  // HF model card: 8.29B
}

TEST(MultimodalCatalogTest, LlavaMatchesThePublishedTotals) {
  const MultimodalSpec& m7 = Find("llava-1.5-7b");
  // CLIP ViT-L/14-336: 24 x 12,596,224 + patch conv 602,112 + class 1024 + positions 577 x 1024 + 2
  // LayerNorms.
  EXPECT_EQ(m7.vision.ParameterCount(), 303507456.0);
  EXPECT_EQ(m7.vision.TokensPerImage(), 577);
  EXPECT_EQ(m7.LlmTokensPerImage(), 576);
  EXPECT_EQ(m7.vision.ComputedLayers(), 23);  // mm_vision_select_layer -2
  EXPECT_EQ(m7.ProjectorParameters(), 1024.0 * 4096 + 4096 + 4096.0 * 4096 + 4096);
  EXPECT_EQ(m7.ParameterCount(), 7062902784.0);
  ExpectRoundsTo(m7.ParameterCount(), 7.06e9, 0.005e9);  // HF llava-hf/llava-1.5-7b-hf: 7.06B
  const MultimodalSpec& m13 = Find("llava-1.5-13b");
  EXPECT_EQ(m13.ParameterCount(),
            13015864320.0 + 303507456.0 + (1024.0 * 5120 + 5120 + 5120.0 * 5120 + 5120));
  ExpectRoundsTo(m13.ParameterCount(), 13.4e9, 0.05e9);  // HF llava-hf/llava-1.5-13b-hf: 13.4B
}

TEST(MultimodalCatalogTest, InternVl25_38bMatchesThePublishedTotal) {
  const MultimodalSpec& m = Find("internvl2.5-38b");
  // InternViT-6B layer: qkv 3200 x 9600 (no bias), q/k RMSNorms, proj + bias, fc1/fc2 + biases, 2 RMSNorms,
  // ls1/ls2 = 122,918,400; 45 layers; patch conv + bias, class token, 1025 positions.
  EXPECT_EQ(m.vision.LayerParameters(), 122918400.0);
  EXPECT_EQ(m.vision.ParameterCount(), 45 * 122918400.0 + 1884800 + 3200 + 1025.0 * 3200);
  // 5.54B: the 11.1 GB bf16 checkpoint of InternViT-6B-448px-V2_5.
  ExpectRoundsTo(m.vision.ParameterCount(), 5.54e9, 0.005e9);
  EXPECT_EQ(m.ProjectorParameters(), 2 * 12800.0 + 12800.0 * 5120 + 5120 + 5120.0 * 5120 + 5120);
  EXPECT_EQ(m.LlmTokensPerImage(), 256);
  ExpectRoundsTo(m.ParameterCount(), 38.4e9, 0.05e9);  // InternVL2.5 report: 38.4B
}

// A tiny model whose FLOPs are counted by hand.
MultimodalSpec Tiny() {
  MultimodalSpec m;
  m.name = "tiny";
  VisionEncoderSpec& v = m.vision;
  v.layers = 3;
  v.select_layer = -2;  // 2 layers computed
  v.hidden = 8;
  v.heads = 2;
  v.ffn_hidden = 16;
  v.patch_size = 2;
  v.image_size = 8;  // 16 patches
  v.class_token = true;
  m.projector.spatial_merge = 2;  // 4 LLM tokens per image
  m.projector.hidden = 12;
  ModelSpec& l = m.llm;
  l.name = "tiny-llm";
  l.layers = 2;
  l.hidden = 16;
  l.heads = 2;
  l.kv_heads = 2;
  l.ffn_hidden = 32;
  l.vocab = 100;
  return m;
}

TEST(MultimodalFlopsTest, SmallCaseInClosedForm) {
  const MultimodalSpec m = Tiny();
  ASSERT_TRUE(m.Validate().ok()) << m.Validate().error().message;
  const SampleFlops f = MultimodalForwardFlops(m, {.images = 2, .text_tokens = 10});
  // Vision, per image: patch conv 2 x (3 x 2 x 2 x 8) x 16 patches; 2 layers x 2 x (4 x 64 + 2 x 8 x 16) x 17
  // tokens; attention 2 layers x 4 x 17 x 17 x 8.
  const double per_image = 2.0 * 96 * 16 + 2 * 2 * (256 + 256) * 17.0 + 2 * 4 * 17.0 * 17 * 8;
  EXPECT_DOUBLE_EQ(f.vision, 2 * per_image);
  // Projector: 2 x (32 x 12 + 12 x 16) x 8 merged tokens.
  EXPECT_DOUBLE_EQ(f.projector, 2.0 * (32 * 12 + 12 * 16) * 8);
  // LLM over 18 tokens: 2 layers x 2 x (4 x 256 + 2 x 16 x 32) + attention 4 x 2 x 18 x 16 + head 2 x 16 x
  // 100.
  const double per_token = 2 * 2 * (1024.0 + 1024) + 4 * 2 * 18.0 * 16 + 2 * 16 * 100.0;
  EXPECT_DOUBLE_EQ(f.llm, 18 * per_token);
  EXPECT_DOUBLE_EQ(f.Total(), f.vision + f.projector + f.llm);
  // A text-only sample has no vision or projector work.
  const SampleFlops t = MultimodalForwardFlops(m, {.images = 0, .text_tokens = 10});
  EXPECT_EQ(t.vision, 0);
  EXPECT_EQ(t.projector, 0);
}

TEST(MultimodalFlopsTest, WindowAttentionCountsOnlyTheWindow) {
  MultimodalSpec m = Tiny();
  m.vision.class_token = false;
  m.vision.select_layer = -1;
  const double full = MultimodalForwardFlops(m, {.images = 1, .text_tokens = 0}).vision;
  m.vision.window_size = 4;  // 2 x 2 patches = 4
  m.vision.full_attention_layers = {2};
  const double windowed = MultimodalForwardFlops(m, {.images = 1, .text_tokens = 0}).vision;
  // Two of three layers attend over 4 keys instead of 16: 2 x 4 x 16 x (16 - 4) x 8 fewer.
  EXPECT_DOUBLE_EQ(full - windowed, 2 * 4 * 16.0 * 12 * 8);
}

TEST(MultimodalSpecTest, ShapeRulesNameTheirKeys) {
  MultimodalSpec m = Tiny();
  m.projector.spatial_merge = 3;  // 4 patches per side
  auto issues = m.ShapeIssues();
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].keys[0], "projector.spatial_merge");
  m = Tiny();
  m.vision.select_layer = -4;
  issues = m.ShapeIssues();
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].keys[0], "vision.select_layer");
  m = Tiny();
  m.llm.heads = 3;
  EXPECT_FALSE(m.Validate().ok());
  EXPECT_NE(m.Validate().error().message.find("llm: hidden 16 is not divisible by heads 3"),
            std::string::npos);
}

TEST(MultimodalCatalogTest, UserFileAddsAnEntryAndRejectsAnUnknownLlm) {
  catalog::Catalogs cat = Cat();
  const char* ok = R"(
multimodal_models:
  - name: my-vlm
    llm: llama2-7b
    vision: {layers: 2, hidden: 64, heads: 4, ffn_hidden: 256, patch_size: 16, image_size: 224}
)";
  ASSERT_TRUE(io::MergeCatalogText(ok, "user.yaml", cat).ok());
  const MultimodalSpec* m = cat.multimodal.Find("my-vlm").value();
  EXPECT_EQ(m->LlmTokensPerImage(), 196);
  EXPECT_EQ(m->ProjectorHidden(), 4096);
  const char* bad = R"(
multimodal_models:
  - name: bad-vlm
    llm: no-such-llm
    vision: {layers: 2, hidden: 64, heads: 4, ffn_hidden: 256, patch_size: 16, image_size: 224}
)";
  const Status st = io::MergeCatalogText(bad, "user.yaml", cat);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("llm"), std::string::npos) << st.error().message;
  const char* missing = R"(
multimodal_models:
  - name: no-vision
    llm: llama2-7b
)";
  EXPECT_FALSE(io::MergeCatalogText(missing, "user.yaml", cat).ok());
}

}  // namespace
}  // namespace dlsim::model
