// Per-sample modality mix of multimodal training (issue 15): how many images (tiles) and how many text tokens
// each sample of a batch carries, so that batches differ in vision and LLM work. From distributions (a
// weighted mix of components such as captioning, interleaved documents, text-only) or from a list of samples
// (a file's rows, passed in as text: models never open files).
//
//   ModalityMixSpec spec = ...;                      // io fills it from YAML, or a reproduction builds it
//   auto mix = MakeModalityMix(spec);                // Result<ModalityMix>
//   Rng rng = Rng(seed).Stream("data/modality");
//   std::vector<model::MultimodalSample> batch = mix->DrawBatch(rng, 256);
//   auto micro = SplitMultimodalBatch(batch, 16, /*llm_tokens_per_image=*/256);
//
// Values; const methods are thread-safe (the Rng is the caller's).
#ifndef DLSIM_DATA_MODALITY_MIX_H_
#define DLSIM_DATA_MODALITY_MIX_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/rng.h"
#include "dlsim/data/length_source.h"
#include "dlsim/model/multimodal.h"

namespace dlsim::data {

// One source of samples: with probability text_only_fraction a sample has no image, else `images` draws its
// image count (>= 1); `text` draws its text tokens.
struct ModalityComponent {
  std::string name;
  double weight = 1;
  double text_only_fraction = 0;
  LengthSpec images;
  LengthSpec text;
};

enum class BatchGrouping {
  kPerSample,  // every sample draws its component from the weights (a shuffled mix)
  kPerBatch,   // a batch draws one component and all its samples come from it (one source shard at a time)
};

struct ModalityMixSpec {
  std::vector<ModalityComponent> components;
  BatchGrouping grouping = BatchGrouping::kPerSample;
  // When not empty: samples are drawn uniformly (with replacement) from these rows instead of the components.
  std::vector<model::MultimodalSample> samples;
  std::string file;  // where `samples` came from (reports only)
};

class ModalityMix {
 public:
  // `count` samples of one batch.
  std::vector<model::MultimodalSample> DrawBatch(Rng& rng, int count) const;
  // Samples of one packed batch: drawn until their LLM tokens (text + images x llm_tokens_per_image) reach
  // `token_budget` (the last may overshoot); none when the budget is <= 0.
  std::vector<model::MultimodalSample> DrawPacked(Rng& rng, int64_t token_budget,
                                                  int64_t llm_tokens_per_image) const;
  // Expected images and text tokens of one sample (before truncation).
  double MeanImages() const;
  double MeanTextTokens() const;

 private:
  friend Result<ModalityMix> MakeModalityMix(const ModalityMixSpec& spec);
  struct Component {
    double text_only = 0;
    std::shared_ptr<const LengthSource> images, text;
  };
  model::MultimodalSample DrawFrom(const Component& c, Rng& rng) const;
  std::vector<Component> components_;
  std::vector<double> weights_;
  BatchGrouping grouping_ = BatchGrouping::kPerSample;
  std::vector<model::MultimodalSample> samples_;
};

// Errors (kInvalidArgument, naming the component): no components and no samples, a negative or all-zero
// weight, text_only_fraction outside [0, 1], a bad images or text LengthSpec (MakeLengthSource's rules), a
// listed sample with negative images or no tokens at all.
Result<ModalityMix> MakeModalityMix(const ModalityMixSpec& spec);

// Parses a CSV of samples with columns `images` and `text_tokens` (other columns ignored). Errors (kParse,
// naming the file and line): a missing column, a value that is not a non-negative integer, no rows.
Result<std::vector<model::MultimodalSample>> ParseModalitySamples(std::string_view text,
                                                                  const std::string& file_name);

// Splits a batch into `micro_batches` micro-batches balanced by LLM tokens (text + images x
// llm_tokens_per_image): samples largest first, each into the micro-batch with the fewest LLM tokens so far
// (ties: the lower index); each micro-batch keeps its samples in batch order. Packing to equal token counts
// is what real LMM trainers do; vision work still differs between micro-batches and batches. Fewer samples
// than micro-batches leaves some empty.
std::vector<std::vector<model::MultimodalSample>> SplitMultimodalBatch(
    const std::vector<model::MultimodalSample>& batch, int micro_batches, int64_t llm_tokens_per_image);

}  // namespace dlsim::data

#endif  // DLSIM_DATA_MODALITY_MIX_H_
