// Prices the modules of a large multimodal model (model/multimodal.h) for one micro-batch on one GPU: every
// unit of the model's layer chain (vision layers, the projector, LLM layers; the patch embedding rides with
// the first vision layer, the LLM embedding with the first LLM layer and the LM head with the last) by the
// same operator pricing as dense training (ChunkCostModel::PriceOps: the cost model, tensor parallelism, the
// host floor, recomputation). Tensor parallelism splits every module (tp = options.parallel.tp, sequence
// parallel as options say); no context parallelism.
//
// A micro-batch is a list of samples (images, text tokens): the vision encoder runs over images x
// TokensPerImage tokens with one attention block per image (or per window), the projector over the merged
// tokens, the LLM over each sample's text + image tokens as one causal sequence (packed, per-sample masks).
//
//   MultimodalCostModel cost(spec, options, ctx);
//   MmUnitCosts c = cost.Price({{.images = 2, .text_tokens = 300}, {.images = 0, .text_tokens = 900}});
//   Duration f = c.unit[cost.chain()[0]].fwd.Total();
//
// Thread-compatible: const methods may run concurrently; the referenced options and context must outlive it.
#ifndef DLSIM_TRAIN_MULTIMODAL_COST_H_
#define DLSIM_TRAIN_MULTIMODAL_COST_H_

#include <array>
#include <memory>
#include <vector>

#include "dlsim/model/multimodal.h"
#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/options.h"
#include "dlsim/train/step_context.h"

namespace dlsim::train {

// What a unit of the chain is, for pricing.
enum class MmUnit {
  kVisionFull,    // a vision layer with full attention over each image
  kVisionWindow,  // a vision layer with window attention
  kProjector,
  kLlmLayer,
  kPatchEmbed,  // extras: ride with the first vision layer
  kLlmEmbed,    // ... with the first LLM layer
  kLlmHead,     // ... with the last LLM layer (final norm, LM head, loss)
  kCount
};
inline constexpr int kMmUnitKinds = static_cast<int>(MmUnit::kCount);

// The module of a unit: 0 vision (and the patch embedding), 1 projector, 2 LLM.
int MmModuleOf(MmUnit u);

using LayerCost = ChunkCostModel::LayerCost;

// The costs of every unit kind for one micro-batch, and its token counts.
struct MmUnitCosts {
  std::array<LayerCost, kMmUnitKinds> unit;
  int64_t vision_tokens = 0;  // through the encoder layers
  int64_t llm_tokens = 0;     // through the projector's output and the LLM
  int images = 0;
};

class MultimodalCostModel {
 public:
  // `options`: hardware, training precision and attention kernel, parallel.tp / sequence_parallel /
  // recompute / tp_comm_overlap (options.model is ignored). Vision heads that tp does not divide are padded
  // to the next multiple of tp (dummy heads computing like real ones, as Megatron-LM pads InternViT's 25
  // heads).
  MultimodalCostModel(const model::MultimodalSpec& spec, const TrainOptions& options, const StepContext& ctx);

  // The model as a chain of units in execution order: ComputedLayers vision layers, the projector, the LLM
  // layers. Extras (embeddings, head) are not in the chain; StageCost adds them to the stage that holds their
  // unit.
  const std::vector<MmUnit>& chain() const { return chain_; }
  int units() const { return static_cast<int>(chain_.size()); }
  // Chain index of the projector (== the number of computed vision layers).
  int projector_unit() const { return static_cast<int>(chain_.size()) - spec_.llm.layers - 1; }

  MmUnitCosts Price(const std::vector<model::MultimodalSample>& micro_batch) const;

  // Forward and backward time of chain units [first, first + count) for costs `c` (their sum, with the
  // extras of the first vision layer, the first LLM layer and the last one when they are in the range).
  void StageCost(const MmUnitCosts& c, int first, int count, TaskCost& fwd, TaskCost& bwd) const;
  // Kinds of units [first, first + count) (counts per MmUnit, extras included): two ranges with equal counts
  // cost the same for every micro-batch.
  std::array<int, kMmUnitKinds> StageKinds(int first, int count) const;
  // Time to send the activation that leaves chain unit `unit` (its output) of a micro-batch with costs `c` to
  // the next pipeline stage: vision tokens x vision hidden before the projector, LLM tokens x LLM hidden
  // after, split over tp.
  Duration P2p(const MmUnitCosts& c, int unit) const;
  // Parameters (a count) of chain units [first, first + count) on one GPU (after tp), extras included.
  double StageParameters(int first, int count) const;
  // Forward model FLOPs of one micro-batch (matmuls and attention: model::MultimodalForwardFlops).
  double ForwardFlops(const std::vector<model::MultimodalSample>& micro_batch) const;

  const model::MultimodalSpec& spec() const { return spec_; }

 private:
  const model::MultimodalSpec& spec_;
  const StepContext& ctx_;
  TrainOptions vision_options_, llm_options_;
  ParallelPlan vision_plan_, llm_plan_;
  std::unique_ptr<ChunkCostModel> vision_, llm_;
  std::vector<model::Op> full_ops_, llm_ops_, projector_ops_, patch_ops_, embed_ops_, head_ops_;
  std::vector<MmUnit> chain_;
  int tp_ = 1;
  bool cross_node_ = false;
};

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_MULTIMODAL_COST_H_
