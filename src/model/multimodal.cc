#include "dlsim/model/multimodal.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "op_builders.h"

namespace dlsim::model {

std::string_view ProjectorNormName(ProjectorNorm n) {
  switch (n) {
    case ProjectorNorm::kNone:
      return "none";
    case ProjectorNorm::kLayerNorm:
      return "layernorm";
    case ProjectorNorm::kRmsNorm:
      return "rmsnorm";
  }
  return "?";
}

namespace {

double NormParams(Norm n, double width) { return n == Norm::kLayerNorm ? 2 * width : width; }
double NormParams(ProjectorNorm n, double width) {
  return n == ProjectorNorm::kLayerNorm ? 2 * width : n == ProjectorNorm::kRmsNorm ? width : 0;
}

}  // namespace

int64_t VisionEncoderSpec::PatchesPerImage() const {
  if (patch_size <= 0) return 0;
  const int64_t side = image_size / patch_size;
  return side * side;
}

int64_t VisionEncoderSpec::TokensPerImage() const { return PatchesPerImage() + (class_token ? 1 : 0); }

int VisionEncoderSpec::ComputedLayers() const { return layers + select_layer + 1; }

int64_t VisionEncoderSpec::WindowPatches() const {
  if (window_size <= 0 || patch_size <= 0) return 0;
  const int64_t side = window_size / patch_size;
  return side * side;
}

bool VisionEncoderSpec::IsFullAttentionLayer(int i) const {
  if (WindowPatches() == 0) return true;
  return std::find(full_attention_layers.begin(), full_attention_layers.end(), i) !=
         full_attention_layers.end();
}

int VisionEncoderSpec::FullAttentionLayers() const {
  int n = 0;
  for (int i = 0; i < ComputedLayers(); ++i) n += IsFullAttentionLayer(i) ? 1 : 0;
  return n;
}

double VisionEncoderSpec::LayerParameters() const {
  const double h = hidden, f = ffn_hidden;
  double attn = 4 * h * h;  // Q, K, V, output
  if (qkv_bias) attn += 3 * h;
  if (linear_bias) attn += h;
  if (qk_norm) attn += 2 * NormParams(norm, h);
  const double up = gated_mlp ? 2 * f : f;
  double mlp = up * h + f * h;
  if (linear_bias) mlp += up + h;
  double p = attn + mlp + 2 * NormParams(norm, h);
  if (layer_scale) p += 2 * h;
  return p;
}

double VisionEncoderSpec::EmbeddingParameters() const {
  const double h = hidden;
  const double kernel = static_cast<double>(channels) * temporal_patch * patch_size * patch_size;
  double p = kernel * h + (patch_bias ? h : 0);
  if (class_token) p += h;
  if (position_embedding == PositionEmbedding::kLearned) p += static_cast<double>(TokensPerImage()) * h;
  if (pre_norm) p += NormParams(norm, h);
  return p;
}

double VisionEncoderSpec::ParameterCount() const {
  return layers * LayerParameters() + EmbeddingParameters() + (final_norm ? NormParams(norm, hidden) : 0);
}

ModelSpec VisionEncoderSpec::LayerShape() const {
  ModelSpec m;
  m.name = "vision";
  m.arch = Arch::kEncoder;
  m.layers = std::max(1, ComputedLayers());
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn_hidden = ffn_hidden;
  m.vocab = 1;
  m.gated_mlp = gated_mlp;
  m.attention_bias = qkv_bias;
  m.linear_bias = linear_bias && qkv_bias;  // ModelSpec's linear_bias implies the QKV bias
  m.norm = norm;
  m.position_embedding = PositionEmbedding::kNone;
  m.max_seq_len = static_cast<int>(TokensPerImage());
  m.source = "vision encoder layer";
  return m;
}

int64_t MultimodalSpec::LlmTokensPerImage() const {
  const int64_t merge = std::max(1, projector.spatial_merge);
  return vision.PatchesPerImage() / (merge * merge);
}

int64_t MultimodalSpec::ProjectorInputWidth() const {
  const int64_t merge = projector.spatial_merge;
  return static_cast<int64_t>(vision.hidden) * merge * merge;
}

int64_t MultimodalSpec::ProjectorHidden() const {
  return projector.hidden > 0 ? projector.hidden : llm.hidden;
}

double MultimodalSpec::ProjectorParameters() const {
  const double in = static_cast<double>(ProjectorInputWidth()), mid = static_cast<double>(ProjectorHidden());
  const double out = llm.hidden;
  double p = in * mid + mid * out;
  if (projector.bias) p += mid + out;
  p += NormParams(projector.norm, projector.norm_merged ? in : vision.hidden);
  return p;
}

double MultimodalSpec::ParameterCount() const {
  return vision.ParameterCount() + ProjectorParameters() + llm.ParameterCount();
}

namespace {

std::string S(int64_t v) { return std::to_string(v); }

void AddVisionIssues(const VisionEncoderSpec& v, int merge, std::vector<ShapeIssue>& out) {
  const std::pair<std::string_view, int> fields[] = {
      {"vision.layers", v.layers},         {"vision.hidden", v.hidden},
      {"vision.heads", v.heads},           {"vision.ffn_hidden", v.ffn_hidden},
      {"vision.patch_size", v.patch_size}, {"vision.temporal_patch", v.temporal_patch},
      {"vision.channels", v.channels},     {"vision.image_size", v.image_size},
      {"projector.spatial_merge", merge}};
  const size_t before = out.size();
  for (const auto& [field, value] : fields)
    if (value <= 0)
      out.push_back({{field}, std::string(field) + " must be a positive integer, found " + S(value)});
  if (out.size() > before) return;
  if (v.hidden % v.heads != 0)
    out.push_back({{"vision.heads", "vision.hidden"},
                   "vision hidden " + S(v.hidden) + " is not divisible by heads " + S(v.heads)});
  if (v.image_size % v.patch_size != 0)
    out.push_back({{"vision.image_size", "vision.patch_size"},
                   "image_size " + S(v.image_size) + " is not a multiple of patch_size " + S(v.patch_size)});
  const int64_t side = v.image_size / v.patch_size;
  if (side % merge != 0)
    out.push_back(
        {{"projector.spatial_merge", "vision.image_size"},
         "spatial_merge " + S(merge) + " does not divide the " + S(side) + " patches per image side"});
  if (v.window_size < 0 || (v.window_size > 0 && v.window_size % (v.patch_size * merge) != 0))
    out.push_back({{"vision.window_size"},
                   "window_size " + S(v.window_size) +
                       " must be 0 (full attention) or a multiple of patch_size x "
                       "spatial_merge = " +
                       S(static_cast<int64_t>(v.patch_size) * merge)});
  for (int i : v.full_attention_layers)
    if (i < 0 || i >= v.layers)
      out.push_back({{"vision.full_attention_layers"},
                     "full attention layer " + S(i) + " is not in 0.." + S(v.layers - 1)});
  if (v.select_layer > -1 || v.select_layer < -v.layers)
    out.push_back({{"vision.select_layer"},
                   "select_layer " + S(v.select_layer) + " must be in -" + S(v.layers) +
                       "..-1 (-1: the last layer's output feeds the projector)"});
}

}  // namespace

std::vector<ShapeIssue> MultimodalSpec::ShapeIssues() const {
  std::vector<ShapeIssue> out;
  for (ShapeIssue& issue : llm.ShapeIssues()) {
    issue.message = "llm: " + issue.message;
    out.push_back(std::move(issue));
  }
  AddVisionIssues(vision, projector.spatial_merge, out);
  if (projector.hidden < 0)
    out.push_back({{"projector.hidden"}, "projector hidden must be 0 (the LLM's) or positive"});
  return out;
}

Status MultimodalSpec::Validate() const {
  std::vector<ShapeIssue> issues = ShapeIssues();
  if (issues.empty()) return Status::Ok();
  return Error::InvalidArgument("multimodal model '" + name + "': " + issues.front().message);
}

SampleFlops MultimodalForwardFlops(const MultimodalSpec& m, const MultimodalSample& s) {
  SampleFlops f;
  const VisionEncoderSpec& v = m.vision;
  const double n = static_cast<double>(v.TokensPerImage()), h = v.hidden, ff = v.ffn_hidden;
  const double matmul = 4 * h * h + (v.gated_mlp ? 3 : 2) * h * ff;  // per layer, per token
  const double kernel = static_cast<double>(v.channels) * v.temporal_patch * v.patch_size * v.patch_size;
  const double window =
      v.WindowPatches() > 0 ? std::min<double>(n, static_cast<double>(v.WindowPatches())) : n;
  const int full = v.FullAttentionLayers(), layers = v.ComputedLayers();
  double per_image = 2 * kernel * h * static_cast<double>(v.PatchesPerImage());
  per_image += layers * 2 * matmul * n;
  per_image += 4 * n * h * (full * n + (layers - full) * window);
  f.vision = s.images * per_image;
  const double merged = static_cast<double>(m.LlmTokensPerImage()) * s.images;
  const double in = static_cast<double>(m.ProjectorInputWidth()),
               mid = static_cast<double>(m.ProjectorHidden());
  f.projector = 2 * (in * mid + mid * m.llm.hidden) * merged;
  const double tokens = merged + static_cast<double>(s.text_tokens);
  f.llm = ModelForwardFlops(m.llm, tokens, tokens, false);
  return f;
}

std::vector<Op> BuildProjectorOps(const MultimodalSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes;
  const int64_t in = m.ProjectorInputWidth(), mid = m.ProjectorHidden();
  std::vector<Op> ops;
  if (m.projector.norm != ProjectorNorm::kNone)
    ops.push_back(internal::Memory("projector_norm", Shard::kTokens, 2 * a * in, 8.0 * in, a * in,
                                   Access::kNormalization));
  ops.push_back(internal::Gemm("projector_fc1", Shard::kColumn, mid, in, a * in));
  ops.push_back(internal::Memory("projector_gelu", Shard::kInner, 2 * a * mid, 8.0 * mid, a * mid,
                                 Access::kElementwise));
  ops.push_back(internal::Gemm("projector_fc2", Shard::kRow, m.llm.hidden, mid, a * mid));
  return ops;
}

std::vector<Op> BuildPatchEmbeddingOps(const MultimodalSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes;
  const VisionEncoderSpec& v = m.vision;
  const int64_t kernel = static_cast<int64_t>(v.channels) * v.temporal_patch * v.patch_size * v.patch_size;
  // The convolution as a GEMM over unfolded pixels (replicated across TP: its output is the full hidden).
  std::vector<Op> ops;
  ops.push_back(internal::Gemm("patch_embed", Shard::kReplicated, v.hidden, kernel, a * kernel));
  ops.push_back(
      internal::Memory("embed_add", Shard::kTokens, 3 * a * v.hidden, v.hidden, 0, Access::kElementwise));
  return ops;
}

Status MultimodalCatalog::Add(MultimodalSpec spec) {
  DLSIM_RETURN_IF_ERROR(spec.Validate());
  return models_.Add(std::move(spec));
}

Result<const MultimodalSpec*> MultimodalCatalog::Find(std::string_view name_or_alias) const {
  return models_.Find(name_or_alias);
}

std::vector<std::string> MultimodalCatalog::Names() const { return models_.Names(); }
std::vector<const MultimodalSpec*> MultimodalCatalog::Models() const { return models_.Entries(); }

}  // namespace dlsim::model
