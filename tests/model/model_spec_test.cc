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
      {[](ModelSpec& s) { s.heads = 30; }, "heads (30) must divide hidden (4096)"},
      {[](ModelSpec& s) { s.kv_heads = 5; }, "kv_heads (5) must divide heads (32)"},
      {[](ModelSpec& s) { s.kv_heads = 64; }, "kv_heads (64) must divide heads (32)"},
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
