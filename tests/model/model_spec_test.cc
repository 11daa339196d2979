// ModelSpec parameter counts (closed form, on hand-built shapes), validation and ModelCatalog.
#include "dlsim/model/model_spec.h"

#include <gtest/gtest.h>

namespace dlsim::model {
namespace {

ModelSpec Llama2_7b() {
  ModelSpec m;
  m.name = "llama2-7b";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 32;
  m.ffn_hidden = 11008;
  m.vocab = 32000;
  m.gated_mlp = true;
  m.norm = Norm::kRmsNorm;
  m.position_embedding = PositionEmbedding::kRope;
  return m;
}

TEST(ModelSpecTest, Llama2_7bCountMatchesHuggingFaceExactly) {
  // HF Llama-2-7b-hf has 6,738,415,616 parameters.
  EXPECT_EQ(Llama2_7b().ParameterCount(), 6738415616.0);
}

TEST(ModelSpecTest, LayerParametersByHand) {
  ModelSpec m = Llama2_7b();
  const double h = 4096, f = 11008;
  EXPECT_EQ(m.LayerParameters(), 4 * h * h + 3 * h * f + 2 * h);
  m.kv_heads = 8;  // GQA: K and V shrink to 8 x 128
  EXPECT_EQ(m.LayerParameters(), 2 * h * h + 2 * h * 1024 + 3 * h * f + 2 * h);
  m.attention_bias = true;  // QKV bias only
  EXPECT_EQ(m.LayerParameters(), 2 * h * h + 2 * h * 1024 + (h + 2 * 1024) + 3 * h * f + 2 * h);
}

TEST(ModelSpecTest, GptStyleBiasesLayerNormLearnedPositionsTiedHead) {
  ModelSpec m;
  m.name = "gpt";
  m.layers = 2;
  m.hidden = 8;
  m.heads = 2;
  m.kv_heads = 2;
  m.ffn_hidden = 32;
  m.vocab = 100;
  m.linear_bias = true;
  m.tied_embeddings = true;
  m.norm = Norm::kLayerNorm;
  m.position_embedding = PositionEmbedding::kLearned;
  m.max_seq_len = 16;
  // 12h^2 + 13h per layer (Megatron's formula), embeddings V*h + s*h, final LayerNorm 2h.
  EXPECT_EQ(m.LayerParameters(), 12 * 64 + 13 * 8);
  EXPECT_EQ(m.EmbeddingParameters(), 100 * 8 + 16 * 8);
  EXPECT_EQ(m.HeadParameters(), 2 * 8);
  m.tied_embeddings = false;
  EXPECT_EQ(m.HeadParameters(), 2 * 8 + 100 * 8);
}

TEST(ModelSpecTest, ValidateNamesTheField) {
  ModelSpec m = Llama2_7b();
  EXPECT_TRUE(m.Validate().ok());
  struct Case {
    void (*mutate)(ModelSpec&);
    const char* expect;
  };
  const Case cases[] = {
      {[](ModelSpec& s) { s.layers = 0; }, "layers must be a positive integer"},
      {[](ModelSpec& s) { s.heads = 30; },
       "hidden 4096 is not divisible by heads 30 (head_dim = hidden / heads)"},
      {[](ModelSpec& s) { s.kv_heads = 5; }, "heads 32 is not a multiple of kv_heads 5"},
      {[](ModelSpec& s) { s.kv_heads = 64; }, "heads 32 is not a multiple of kv_heads 64"},
      {[](ModelSpec& s) { s.dropout = 1.5; }, "dropout must be in [0, 1)"},
      {[](ModelSpec& s) { s.position_embedding = PositionEmbedding::kLearned; }, "positive max_seq_len"},
  };
  for (const Case& c : cases) {
    ModelSpec bad = Llama2_7b();
    c.mutate(bad);
    Status st = bad.Validate();
    ASSERT_FALSE(st.ok()) << c.expect;
    EXPECT_NE(st.error().message.find(c.expect), std::string::npos) << st.error().message;
    EXPECT_NE(st.error().message.find("model 'llama2-7b'"), std::string::npos);
  }
}

// Every broken rule, each with the keys a reader points at; a non-positive field alone (the other
// rules would divide by it).
TEST(ModelSpecTest, ShapeIssuesListEveryBrokenRuleWithItsKeys) {
  ModelSpec m = Llama2_7b();
  EXPECT_TRUE(m.ShapeIssues().empty());
  m.hidden = 64;
  m.heads = 3;
  m.kv_heads = 5;
  m.dropout = 1.0;
  const std::vector<ShapeIssue> issues = m.ShapeIssues();
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues[0].keys, (std::vector<std::string_view>{"heads", "hidden"}));
  EXPECT_EQ(issues[0].message, "hidden 64 is not divisible by heads 3 (head_dim = hidden / heads)");
  EXPECT_EQ(issues[1].keys, (std::vector<std::string_view>{"kv_heads", "heads"}));
  EXPECT_EQ(
      issues[1].message,
      "heads 3 is not a multiple of kv_heads 5 (each key/value head serves a whole group of query heads)");
  EXPECT_EQ(issues[2].keys, (std::vector<std::string_view>{"dropout"}));
  EXPECT_EQ(m.Validate().error().message, "model 'llama2-7b': " + issues[0].message);
  m.heads = 0;
  ASSERT_EQ(m.ShapeIssues().size(), 1u);
  EXPECT_EQ(m.ShapeIssues()[0].message, "heads must be a positive integer, found 0");
}

TEST(ModelCatalogTest, FindByAliasAndSuggest) {
  ModelCatalog c;
  ModelSpec m = Llama2_7b();
  m.aliases = {"llama-2-7b"};
  ASSERT_TRUE(c.Add(m).ok());
  EXPECT_EQ((*c.Find("llama-2-7b"))->name, "llama2-7b");
  auto r = c.Find("llama2-7");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("did you mean 'llama2-7b'"), std::string::npos) << r.error().message;
  m.layers = 0;
  EXPECT_FALSE(c.Add(m).ok());
  EXPECT_EQ(c.Names(), std::vector<std::string>{"llama2-7b"});
}

TEST(NamesTest, EnumNames) {
  EXPECT_EQ(ArchName(Arch::kEncoder), "encoder");
  EXPECT_EQ(NormName(Norm::kRmsNorm), "rmsnorm");
  EXPECT_EQ(PositionEmbeddingName(PositionEmbedding::kNone), "none");
}

}  // namespace
}  // namespace dlsim::model
