#include "dlsim/train/multimodal_cost.h"

#include <algorithm>
#include <map>

namespace dlsim::train {
namespace {

constexpr double kActBytes = 2.0;

int Idx(MmUnit u) { return static_cast<int>(u); }

// A plan of one pipeline stage holding the whole module (ChunkCostModel prices per layer; the plan only sets
// the widths).
ParallelPlan ModulePlan(const TrainOptions& o, int layers, int seq_len) {
  ParallelPlan p;
  p.tp = o.parallel.tp;
  p.dp = std::max(1, o.parallel.dp);
  p.sequence_parallel = o.parallel.sequence_parallel;
  p.micro_batch = 1;
  p.micro_batches = 1;
  p.seq_len = std::max(1, seq_len);
  p.layers = {layers};
  return p;
}

void Add(TaskCost& into, const TaskCost& x, int64_t k) {
  into.compute += x.compute * k;
  into.recompute += x.recompute * k;
  into.tp_comm += x.tp_comm * k;
  into.cp_comm += x.cp_comm * k;
  into.ep_comm += x.ep_comm * k;
  into.mix += x.mix * static_cast<double>(k);
}

}  // namespace

int MmModuleOf(MmUnit u) {
  switch (u) {
    case MmUnit::kVisionFull:
    case MmUnit::kVisionWindow:
    case MmUnit::kPatchEmbed:
      return 0;
    case MmUnit::kProjector:
      return 1;
    default:
      return 2;
  }
}

MultimodalCostModel::MultimodalCostModel(const model::MultimodalSpec& spec, const TrainOptions& options,
                                         const StepContext& ctx)
    : spec_(spec),
      ctx_(ctx),
      vision_options_(options),
      llm_options_(options),
      tp_(std::max(1, options.parallel.tp)) {
  model::ModelSpec vision = spec.vision.LayerShape();
  if (vision.heads % tp_ != 0) {  // dummy heads up to a multiple of tp, each as wide as a real one
    vision.explicit_head_dim = vision.hidden / vision.heads;
    vision.heads = (vision.heads + tp_ - 1) / tp_ * tp_;
    vision.kv_heads = vision.heads;
  }
  vision_options_.model = vision;
  llm_options_.model = spec.llm;
  vision_plan_ = ModulePlan(options, vision.layers, static_cast<int>(spec.vision.TokensPerImage()));
  llm_plan_ = ModulePlan(options, spec.llm.layers, 4096);
  vision_ = std::make_unique<ChunkCostModel>(vision_options_, vision_plan_, ctx);
  llm_ = std::make_unique<ChunkCostModel>(llm_options_, llm_plan_, ctx);
  model::LayerOptions lo;
  lo.attention = options.training.attention;
  lo.activation_bytes = kActBytes;
  full_ops_ = model::BuildLayerOps(vision, lo);
  llm_ops_ = model::BuildLayerOps(spec.llm, lo);
  projector_ops_ = model::BuildProjectorOps(spec, lo);
  patch_ops_ = model::BuildPatchEmbeddingOps(spec, lo);
  embed_ops_ = model::BuildEmbeddingOps(spec.llm, lo);
  head_ops_ = model::BuildHeadOps(spec.llm, lo);
  for (int i = 0; i < spec.vision.ComputedLayers(); ++i)
    chain_.push_back(spec.vision.IsFullAttentionLayer(i) ? MmUnit::kVisionFull : MmUnit::kVisionWindow);
  chain_.push_back(MmUnit::kProjector);
  for (int i = 0; i < spec.llm.layers; ++i) chain_.push_back(MmUnit::kLlmLayer);
  cross_node_ = tp_ * std::max(1, options.parallel.dp) >= ctx.gpus_per_node;
}

MmUnitCosts MultimodalCostModel::Price(const std::vector<model::MultimodalSample>& micro_batch) const {
  MmUnitCosts c;
  const model::VisionEncoderSpec& v = spec_.vision;
  std::map<int64_t, int64_t> sequences;  // LLM sequence length -> samples
  for (const model::MultimodalSample& s : micro_batch) {
    c.images += s.images;
    const int64_t len = s.text_tokens + s.images * spec_.LlmTokensPerImage();
    c.llm_tokens += len;
    if (len > 0) ++sequences[len];
  }
  c.vision_tokens = c.images * v.TokensPerImage();
  if (c.images > 0) {
    const int64_t n = v.TokensPerImage();
    data::Load full;
    full.tokens = full.real_tokens = c.vision_tokens;
    full.attention.push_back({n, n, c.images, false});
    c.unit[Idx(MmUnit::kVisionFull)] = vision_->PriceOps(full_ops_, full, true);
    if (v.WindowPatches() > 0) {
      const int64_t w = std::min(n, v.WindowPatches());
      data::Load window = full;
      window.attention = {{w, w, c.images * ((n + w - 1) / w), false}};
      c.unit[Idx(MmUnit::kVisionWindow)] = vision_->PriceOps(full_ops_, window, true);
    }
    data::Load patches;
    patches.tokens = patches.real_tokens = c.vision_tokens;
    c.unit[Idx(MmUnit::kPatchEmbed)] = vision_->PriceOps(patch_ops_, patches, false);
    data::Load merged;
    merged.tokens = merged.real_tokens = c.images * spec_.LlmTokensPerImage();
    c.unit[Idx(MmUnit::kProjector)] = llm_->PriceOps(projector_ops_, merged, false);
  }
  if (c.llm_tokens > 0) {
    data::Load llm;
    llm.tokens = llm.real_tokens = c.llm_tokens;
    for (const auto& [len, count] : sequences) llm.attention.push_back({len, len, count, true});
    c.unit[Idx(MmUnit::kLlmLayer)] = llm_->PriceOps(llm_ops_, llm, true);
    c.unit[Idx(MmUnit::kLlmEmbed)] = llm_->PriceOps(embed_ops_, llm, false);
    c.unit[Idx(MmUnit::kLlmHead)] = llm_->PriceOps(head_ops_, llm, false);
  }
  return c;
}

std::array<int, kMmUnitKinds> MultimodalCostModel::StageKinds(int first, int count) const {
  std::array<int, kMmUnitKinds> k{};
  const int end = std::min(units(), first + count);
  for (int u = std::max(0, first); u < end; ++u) ++k[Idx(chain_[u])];
  const int projector = projector_unit();
  if (first <= 0 && end > 0 && projector > 0) ++k[Idx(MmUnit::kPatchEmbed)];
  if (first <= projector + 1 && end > projector + 1) ++k[Idx(MmUnit::kLlmEmbed)];
  if (end == units()) ++k[Idx(MmUnit::kLlmHead)];
  return k;
}

void MultimodalCostModel::StageCost(const MmUnitCosts& c, int first, int count, TaskCost& fwd,
                                    TaskCost& bwd) const {
  const std::array<int, kMmUnitKinds> k = StageKinds(first, count);
  fwd = bwd = TaskCost{};
  for (int i = 0; i < kMmUnitKinds; ++i) {
    if (k[i] == 0) continue;
    Add(fwd, c.unit[i].fwd, k[i]);
    Add(bwd, c.unit[i].bwd, k[i]);
  }
}

Duration MultimodalCostModel::P2p(const MmUnitCosts& c, int unit) const {
  const bool vision = unit < projector_unit();
  const double tokens = static_cast<double>(vision ? c.vision_tokens : c.llm_tokens);
  const double hidden = vision ? spec_.vision.hidden : spec_.llm.hidden;
  if (tokens <= 0) return Duration::Zero();
  const Bytes act(tokens * hidden * kActBytes / tp_);
  return ctx_.comm->Time(net::Collective::kSendRecv, act, {2, cross_node_ ? 1 : 2}, ctx_.fabric);
}

double MultimodalCostModel::StageParameters(int first, int count) const {
  const std::array<int, kMmUnitKinds> k = StageKinds(first, count);
  const model::VisionEncoderSpec& v = spec_.vision;
  const double vision_layer = v.LayerParameters();
  double p = (k[Idx(MmUnit::kVisionFull)] + k[Idx(MmUnit::kVisionWindow)]) * vision_layer +
             k[Idx(MmUnit::kProjector)] * spec_.ProjectorParameters() +
             k[Idx(MmUnit::kLlmLayer)] * spec_.llm.LayerParameters() +
             k[Idx(MmUnit::kPatchEmbed)] * v.EmbeddingParameters() +
             k[Idx(MmUnit::kLlmEmbed)] * spec_.llm.EmbeddingParameters() +
             k[Idx(MmUnit::kLlmHead)] * spec_.llm.HeadParameters();
  return p / tp_;
}

double MultimodalCostModel::ForwardFlops(const std::vector<model::MultimodalSample>& micro_batch) const {
  double f = 0;
  for (const model::MultimodalSample& s : micro_batch) f += model::MultimodalForwardFlops(spec_, s).Total();
  return f;
}

}  // namespace dlsim::train
