// The shape of a diffusion transformer (DiT, issue 15): the fields a ModelSpec with arch "dit" adds.
//
// A DiT denoises latent tokens (a VAE-compressed, patchified image or video) conditioned on a diffusion
// timestep and on text. Two families are expressed:
//   - cross-attention DiTs (PixArt, Open-Sora, Wan, Step-Video): every block is self-attention over the
//     latent tokens, cross-attention from them to the text tokens, and an MLP, each modulated by the
//     timestep (adaLN);
//   - MMDiT (SD3, FLUX, HunyuanVideo, Step1X-Edit's decoder): the first `double_blocks` blocks are
//     double-stream (text and latent tokens keep separate weights and meet in one joint attention), the
//     rest single-stream (one set of weights over the joined sequence, attention and MLP in parallel).
// The ModelSpec keeps the usual meaning of layers (all blocks), hidden, heads, kv_heads, ffn_hidden,
// gated_mlp and linear_bias; vocab is not used. Formulas: model/dit.h and docs/dit.md.
#ifndef DLSIM_MODEL_DIT_SPEC_H_
#define DLSIM_MODEL_DIT_SPEC_H_

#include <string_view>

namespace dlsim::model {

// RMSNorm on queries and keys: none, per head (FLUX: head_dim weights each for q and k) or over the
// whole projection width (Wan: hidden weights each).
enum class QkNorm { kNone, kPerHead, kFull };
// adaLN modulation: each block maps the conditioning vector through its own Linear(hidden, k x hidden)
// (DiT, FLUX: k = 6 per stream, 3 for a single-stream block), or one shared Linear(hidden, 6 x hidden)
// feeds every block and each block adds a learned 6 x hidden table (PixArt-alpha's adaLN-single, Wan).
enum class Modulation { kPerBlock, kShared };

std::string_view QkNormName(QkNorm n);          // "none" | "head" | "full"
std::string_view ModulationName(Modulation m);  // "block" | "shared"

struct DitSpec {
  // Block structure (see above): cross_attention, or MMDiT with double_blocks double-stream blocks first.
  bool cross_attention = false;
  int double_blocks = 0;
  QkNorm qk_norm = QkNorm::kNone;
  Modulation modulation = Modulation::kPerBlock;
  bool cross_attention_norm = false;  // an affine LayerNorm before cross-attention (Wan's norm3)
  // Conditioning. text_dim: width of the text encoder's features entering the text projection (T5-XXL
  // 4096); text_mlp: that projection is Linear-GELU-Linear (PixArt, Wan) instead of one Linear (FLUX);
  // text_tokens: text tokens per sample (the workload's default; T5 captions are padded to 512);
  // pooled_dim: a pooled text vector added to the timestep embedding through an MLP (FLUX: CLIP-L's
  // 768; 0: none); guidance_embed: FLUX-dev's distilled-guidance MLP; frequency_dim: sinusoidal
  // timestep features.
  int text_dim = 0;
  bool text_mlp = false;
  int text_tokens = 0;
  int pooled_dim = 0;
  bool guidance_embed = false;
  int frequency_dim = 256;
  // Text refiner before the text projection (HunyuanVideo's token refiner, Step1X-Edit's connector):
  // refiner_blocks bidirectional blocks of width refiner_hidden (refiner_heads heads, LayerNorms with
  // weights, a 4x MLP, a 2-way gate modulation) over the text encoder's refiner_in-wide features, with
  // its own timestep and pooled-context MLPs. refiner_pooled: the pooled vector (pooled_dim) is projected
  // from the refiner's input with a learned scale (Step1X-Edit), not given by a second encoder.
  int refiner_blocks = 0;
  int refiner_hidden = 0;
  int refiner_heads = 0;
  int refiner_in = 0;
  bool refiner_pooled = false;
  // Latents: a VAE compresses vae_temporal frames and vae_spatial x vae_spatial pixels into one latent
  // pixel of latent_channels channels (vae_temporal 1: images; a causal video VAE keeps the first
  // frame alone); patchify groups patch_frames x patch x patch latent pixels into one token.
  int latent_channels = 16;
  int patch = 2;
  int patch_frames = 1;
  int vae_spatial = 8;
  int vae_temporal = 1;
  bool vae_causal = true;
};

}  // namespace dlsim::model

#endif  // DLSIM_MODEL_DIT_SPEC_H_
