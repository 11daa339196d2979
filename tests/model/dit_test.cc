// Diffusion transformers (issue 15): latent token counts, parameter counts of FLUX.1-dev as published and of
// small DiTs by hand, forward FLOPs per sample in closed form, and the operators against those FLOPs.
#include "dlsim/model/dit.h"

#include <gtest/gtest.h>

namespace dlsim::model {
namespace {

// FLUX.1-dev from black-forest-labs/flux src/flux/util.py (configs["flux-dev"]).
ModelSpec FluxDev() {
  ModelSpec m;
  m.name = "flux.1-dev";
  m.arch = Arch::kDit;
  m.layers = 57;
  m.hidden = 3072;
  m.heads = 24;
  m.kv_heads = 24;
  m.ffn_hidden = 12288;
  m.linear_bias = true;
  m.dit.double_blocks = 19;
  m.dit.qk_norm = QkNorm::kPerHead;
  m.dit.text_dim = 4096;
  m.dit.text_tokens = 512;
  m.dit.pooled_dim = 768;
  m.dit.guidance_embed = true;
  return m;
}

// A cross-attention DiT small enough to count by hand (Wan's options: q/k norm over the width, shared
// modulation, a norm before cross-attention, a two-layer text projection).
ModelSpec TinyCross() {
  ModelSpec m;
  m.name = "tiny-cross";
  m.arch = Arch::kDit;
  m.layers = 2;
  m.hidden = 8;
  m.heads = 2;
  m.kv_heads = 2;
  m.ffn_hidden = 16;
  m.linear_bias = true;
  m.dit.cross_attention = true;
  m.dit.qk_norm = QkNorm::kFull;
  m.dit.modulation = Modulation::kShared;
  m.dit.cross_attention_norm = true;
  m.dit.text_dim = 6;
  m.dit.text_mlp = true;
  m.dit.text_tokens = 3;
  m.dit.latent_channels = 4;
  m.dit.frequency_dim = 8;
  return m;
}

// An MMDiT small enough to count by hand: 1 double-stream and 2 single-stream blocks (FLUX's options).
ModelSpec TinyMmdit() {
  ModelSpec m = TinyCross();
  m.name = "tiny-mmdit";
  m.layers = 3;
  m.dit = DitSpec{};
  m.dit.double_blocks = 1;
  m.dit.qk_norm = QkNorm::kPerHead;
  m.dit.text_dim = 6;
  m.dit.text_tokens = 3;
  m.dit.pooled_dim = 5;
  m.dit.guidance_embed = true;
  m.dit.latent_channels = 4;
  m.dit.frequency_dim = 8;
  return m;
}

TEST(DitTest, LatentTokensOfPublishedResolutions) {
  DitSpec wan;  // Wan2.1: causal VAE 4 x 8 x 8, patch 1 x 2 x 2
  wan.vae_temporal = 4;
  // 81 frames at 720p: 1 + 80/4 = 21 latent frames of 90 x 160, 21 x 45 x 80 tokens (Wan's 75,600).
  const LatentGrid g = LatentGridOf(wan, {.frames = 81, .height = 720, .width = 1280});
  EXPECT_EQ(g.frames, 21);
  EXPECT_EQ(g.height, 90);
  EXPECT_EQ(g.width, 160);
  EXPECT_EQ(g.tokens, 75600);
  EXPECT_EQ(LatentTokens(wan, {.frames = 81, .height = 480, .width = 832}), 21 * 30 * 52);
  DitSpec flux;  // an image: 1024 x 1024 -> 128 x 128 latents -> 64 x 64 tokens
  EXPECT_EQ(LatentTokens(flux, {.frames = 1, .height = 1024, .width = 1024}), 4096);
  DitSpec odd = wan;  // a non-causal VAE and a temporal patch round up
  odd.vae_causal = false;
  odd.patch_frames = 2;
  EXPECT_EQ(LatentGridOf(odd, {.frames = 10, .height = 64, .width = 64}).frames, 3);
  EXPECT_EQ(LatentTokens(odd, {.frames = 10, .height = 64, .width = 64}), 2 * 4 * 4);
}

TEST(DitTest, FluxDevCountMatchesThePublishedCheckpoint) {
  const ModelSpec m = FluxDev();
  ASSERT_TRUE(m.Validate().ok()) << m.Validate().error().message;
  // 11,901,408,320 parameters in the FLUX.1-dev safetensors.
  EXPECT_EQ(m.ParameterCount(), 11901408320.0);
  EXPECT_EQ(DitBlocksOf(m, DitBlockKind::kDoubleStream), 19);
  EXPECT_EQ(DitBlocksOf(m, DitBlockKind::kSingleStream), 38);
  EXPECT_EQ(DitBlockOf(m, 18), DitBlockKind::kDoubleStream);
  EXPECT_EQ(DitBlockOf(m, 19), DitBlockKind::kSingleStream);
  // A double-stream block by hand: per stream Linear(h, 6h) + QKV + proj (biased) + 2 x 128 q/k norm
  // weights + the 4h MLP.
  const double h = 3072, f = 12288;
  const double stream =
      (h * 6 * h + 6 * h) + (h * 3 * h + 3 * h) + (h * h + h) + 256 + (h * f + f) + (f * h + h);
  EXPECT_EQ(DitBlockParameters(m, DitBlockKind::kDoubleStream), 2 * stream);
  EXPECT_EQ(m.LayerParameters(), 2 * stream);
  // The modulation, which tensor parallelism does not split: Linear(h, 6h) per stream, Linear(h, 3h).
  EXPECT_EQ(DitModulationParameters(m, DitBlockKind::kDoubleStream), 2 * (h * 6 * h + 6 * h));
  EXPECT_EQ(DitModulationParameters(m, DitBlockKind::kSingleStream), h * 3 * h + 3 * h);
}

TEST(DitTest, TinyDitsCountByHand) {
  // Cross-attention block: self- and cross-attention 4 (64 + 8) each + q/k norms 8 + 8 each, the norm before
  // cross-attention 16, the MLP 8x16 + 16 + 16x8 + 8, a 6 x 8 modulation table: 2 x 304 + 16 + 280 + 48.
  const ModelSpec c = TinyCross();
  ASSERT_TRUE(c.Validate().ok()) << c.Validate().error().message;
  EXPECT_EQ(DitBlockParameters(c, DitBlockKind::kCrossAttention), 952);
  // Patch embedding 16x8 + 8, timestep MLP 8x8 + 8 + 8x8 + 8, text MLP 6x8 + 8 + 8x8 + 8, shared Linear(8,
  // 48).
  EXPECT_EQ(DitEmbeddingParameters(c), 136 + 144 + 128 + 432);
  EXPECT_EQ(DitHeadParameters(c), 144 + 16);  // Linear(8, 16) and a 2 x 8 table
  EXPECT_EQ(c.ParameterCount(), 2 * 952 + 840 + 160);
  // MMDiT: double = 2 x (attention 288 + q/k norm 8 + MLP 280 + Linear(8, 48) 432); single = Linear(8, 40) +
  // Linear(24, 8) + 8 + Linear(8, 24).
  const ModelSpec m = TinyMmdit();
  ASSERT_TRUE(m.Validate().ok()) << m.Validate().error().message;
  EXPECT_EQ(DitBlockParameters(m, DitBlockKind::kDoubleStream), 2016);
  EXPECT_EQ(DitBlockParameters(m, DitBlockKind::kSingleStream), 360 + 200 + 8 + 216);
  // Patch 136, timestep 144, pooled 5x8 + 8 + 72, guidance 144, text 6x8 + 8; head 144 + Linear(8, 16).
  EXPECT_EQ(DitEmbeddingParameters(m), 136 + 144 + 120 + 144 + 56);
  EXPECT_EQ(m.ParameterCount(), 2016 + 2 * 784 + 600 + 288);
}

TEST(DitTest, ForwardFlopsPerSampleClosedForm) {
  const double s = 10, t = 3;
  // Cross block: 2 s (QKV 8x24 + O 8x8 + MLP 2x8x16) + 4 s^2 x 8 + 2 s (q 8x8 + o 8x8) + 2 t (kv 2x8x8) +
  // 4 s t x 8 = 10240 + 3200 + 2560 + 768 + 960; two blocks. Patch embedding and final linear 2 x 2 s x 16 x
  // 8, text MLP 2 t (6x8 + 8x8); per sample 2 x (timestep 8x8 + 8x8 + shared modulation 6 x 8x8).
  EXPECT_DOUBLE_EQ(DitForwardFlops(TinyCross(), s, t), 2 * 17728 + 5120 + 672 + 2 * 512);
  // MMDiT, n = 13 joined tokens: double 2n (256 + 256) + 4 n^2 x 8 + 2 x 2 x 6 x 64 (modulation rows);
  // single 2n (8x40 + 24x8) + 4 n^2 x 8 + 2 x 3 x 64; text projection 2 t 6x8; per sample 2 x (timestep 128 +
  // pooled 5x8 + 64 + guidance 128 + final modulation 2 x 64).
  const double n = 13;
  const double dbl = 2 * n * 512 + 4 * n * n * 8 + 1536, sgl = 2 * n * 512 + 4 * n * n * 8 + 384;
  EXPECT_DOUBLE_EQ(DitForwardFlops(TinyMmdit(), s, t), dbl + 2 * sgl + 5120 + 288 + 2 * 488);
}

// The GEMMs of every block's operators, counted on the rows each runs on, plus its attention, are the
// closed-form block FLOPs (DitForwardFlops with one block and no embedding, via differences).
double OpFlops(const ModelSpec& m, DitBlockKind k, double s, double t) {
  double f = 0;
  for (const Op& op : BuildDitBlockOps(m, k, {})) {
    const double rows = op.tokens == TokenSet::kLayer    ? s
                        : op.tokens == TokenSet::kJoint  ? s + t
                        : op.tokens == TokenSet::kSample ? 1
                                                         : t;  // kText, kTextWhole
    if (op.kind == OpKind::kGemm) f += 2.0 * rows * op.n * op.k;
    if (op.kind == OpKind::kAttention) {
      const double keys = op.attention_kind == AttentionKind::kCross ? t : rows;
      f += 4.0 * rows * keys * m.heads * m.head_dim();
    }
  }
  return f;
}

TEST(DitTest, OperatorsAddUpToTheClosedForm) {
  const double s = 10, t = 3;
  for (ModelSpec m : {TinyCross(), TinyMmdit()}) {
    for (Modulation mod : {Modulation::kPerBlock, Modulation::kShared}) {
      m.dit.modulation = mod;
      double ops = 0;
      for (int i = 0; i < m.layers; ++i) ops += OpFlops(m, DitBlockOf(m, i), s, t);
      ModelSpec none = m;  // the same model without blocks: what the embedding and head add
      none.layers = 0;
      none.dit.double_blocks = 0;
      EXPECT_DOUBLE_EQ(ops, DitForwardFlops(m, s, t) - DitForwardFlops(none, s, t)) << m.name;
    }
  }
}

TEST(DitTest, ShapeRules) {
  ModelSpec m = TinyMmdit();
  m.vocab = 0;  // a DiT has no vocabulary
  EXPECT_TRUE(m.Validate().ok());
  m.dit.cross_attention = true;
  EXPECT_NE(m.Validate().error().message.find("no double-stream blocks"), std::string::npos);
  m = TinyMmdit();
  m.dit.double_blocks = 4;
  EXPECT_NE(m.Validate().error().message.find("double_blocks 4 must be in 0..layers = 3"), std::string::npos);
  m = TinyMmdit();
  m.dit.text_dim = 0;
  EXPECT_NE(m.Validate().error().message.find("text_dim must be a positive integer"), std::string::npos);
  m = TinyMmdit();
  m.dit.refiner_blocks = 2;
  EXPECT_NE(m.Validate().error().message.find("a text refiner needs"), std::string::npos);
  m.arch = Arch::kDecoder;  // the DiT rules do not apply to a language model
  m.vocab = 100;
  EXPECT_TRUE(m.Validate().ok());
}

}  // namespace
}  // namespace dlsim::model
