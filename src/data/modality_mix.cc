#include "dlsim/data/modality_mix.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "dlsim/core/csv.h"

namespace dlsim::data {

model::MultimodalSample ModalityMix::DrawFrom(const Component& c, Rng& rng) const {
  model::MultimodalSample s;
  const bool text_only = c.text_only > 0 && rng.NextDouble() < c.text_only;
  s.images = text_only ? 0 : static_cast<int>(c.images->Draw(rng));
  s.text_tokens = c.text->Draw(rng);
  return s;
}

std::vector<model::MultimodalSample> ModalityMix::DrawBatch(Rng& rng, int count) const {
  std::vector<model::MultimodalSample> out;
  if (count <= 0) return out;
  out.reserve(count);
  if (!samples_.empty()) {
    for (int i = 0; i < count; ++i) out.push_back(samples_[rng.NextBelow(samples_.size())]);
    return out;
  }
  const CategoricalSampler pick(weights_);
  const size_t batch_component = pick.Sample(rng);
  for (int i = 0; i < count; ++i) {
    const size_t c = grouping_ == BatchGrouping::kPerBatch ? batch_component : pick.Sample(rng);
    out.push_back(DrawFrom(components_[c], rng));
  }
  return out;
}

std::vector<model::MultimodalSample> ModalityMix::DrawPacked(Rng& rng, int64_t token_budget,
                                                             int64_t llm_tokens_per_image) const {
  std::vector<model::MultimodalSample> out;
  if (token_budget <= 0) return out;
  const CategoricalSampler pick(weights_.empty() ? std::vector<double>{1.0} : weights_);
  const size_t batch_component = pick.Sample(rng);
  int64_t tokens = 0;
  while (tokens < token_budget) {
    model::MultimodalSample s;
    if (!samples_.empty()) {
      s = samples_[rng.NextBelow(samples_.size())];
    } else {
      const size_t c = grouping_ == BatchGrouping::kPerBatch ? batch_component : pick.Sample(rng);
      s = DrawFrom(components_[c], rng);
    }
    tokens += std::max<int64_t>(1, s.text_tokens + s.images * llm_tokens_per_image);
    out.push_back(s);
  }
  return out;
}

double ModalityMix::MeanImages() const {
  if (!samples_.empty()) {
    double sum = 0;
    for (const auto& s : samples_) sum += s.images;
    return sum / static_cast<double>(samples_.size());
  }
  const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  double mean = 0;
  for (size_t i = 0; i < components_.size(); ++i)
    mean += weights_[i] / total * (1 - components_[i].text_only) * components_[i].images->Mean();
  return mean;
}

double ModalityMix::MeanTextTokens() const {
  if (!samples_.empty()) {
    double sum = 0;
    for (const auto& s : samples_) sum += static_cast<double>(s.text_tokens);
    return sum / static_cast<double>(samples_.size());
  }
  const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  double mean = 0;
  for (size_t i = 0; i < components_.size(); ++i) mean += weights_[i] / total * components_[i].text->Mean();
  return mean;
}

namespace {

Status CheckSamples(const std::vector<model::MultimodalSample>& samples) {
  for (size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    if (s.images < 0 || s.text_tokens < 0 || (s.images == 0 && s.text_tokens == 0))
      return Error::InvalidArgument("modality sample " + std::to_string(i) +
                                    ": images and text_tokens must be >= 0 and not both 0");
  }
  return Status::Ok();
}

}  // namespace

Result<ModalityMix> MakeModalityMix(const ModalityMixSpec& spec) {
  ModalityMix mix;
  mix.grouping_ = spec.grouping;
  if (!spec.samples.empty()) {
    DLSIM_RETURN_IF_ERROR(CheckSamples(spec.samples));
    mix.samples_ = spec.samples;
    return mix;
  }
  if (spec.components.empty()) return Error::InvalidArgument("modality mix: no components and no samples");
  double total = 0;
  for (const ModalityComponent& c : spec.components) {
    const std::string who = "modality component '" + c.name + "': ";
    if (!(c.weight >= 0)) return Error::InvalidArgument(who + "weight must be >= 0");
    if (!(c.text_only_fraction >= 0 && c.text_only_fraction <= 1))
      return Error::InvalidArgument(who + "text_only_fraction must be in [0, 1]");
    ModalityMix::Component comp;
    comp.text_only = c.text_only_fraction;
    if (c.text_only_fraction < 1) {
      auto images = MakeLengthSource(c.images);
      if (!images.ok()) return Error::InvalidArgument(who + "images: " + images.error().message);
      comp.images = std::move(images).value();
    } else {
      LengthSpec one;
      one.distribution = "fixed";
      one.value = 1;
      auto fixed = MakeLengthSource(one);
      comp.images = std::move(fixed).value();
    }
    auto text = MakeLengthSource(c.text);
    if (!text.ok()) return Error::InvalidArgument(who + "text: " + text.error().message);
    comp.text = std::move(text).value();
    mix.components_.push_back(std::move(comp));
    mix.weights_.push_back(c.weight);
    total += c.weight;
  }
  if (!(total > 0)) return Error::InvalidArgument("modality mix: the component weights sum to 0");
  return mix;
}

Result<std::vector<model::MultimodalSample>> ParseModalitySamples(std::string_view text,
                                                                  const std::string& file_name) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file_name));
  std::vector<model::MultimodalSample> out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    auto images = t.Number(r, "images");
    if (!images.ok()) return Error::Parse(images.error().message);
    auto tokens = t.Number(r, "text_tokens");
    if (!tokens.ok()) return Error::Parse(tokens.error().message);
    auto bad = [&](double v) { return v < 0 || v != std::floor(v) || v > 1e9; };
    if (bad(*images) || bad(*tokens))
      return Error::Parse(file_name + ":" + std::to_string(t.row_lines[r]) +
                          ": images and text_tokens must be non-negative integers");
    out.push_back({static_cast<int>(*images), static_cast<int64_t>(*tokens)});
  }
  if (out.empty()) return Error::Parse(file_name + ": no samples");
  return out;
}

std::vector<std::vector<model::MultimodalSample>> SplitMultimodalBatch(
    const std::vector<model::MultimodalSample>& batch, int micro_batches, int64_t llm_tokens_per_image) {
  std::vector<std::vector<model::MultimodalSample>> out(std::max(1, micro_batches));
  auto tokens = [&](const model::MultimodalSample& s) {
    return s.text_tokens + s.images * llm_tokens_per_image;
  };
  std::vector<size_t> order(batch.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return tokens(batch[a]) > tokens(batch[b]); });
  std::vector<int64_t> load(out.size(), 0);
  std::vector<size_t> bin_of(batch.size());
  for (size_t i : order) {
    const size_t bin = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[bin] += tokens(batch[i]);
    bin_of[i] = bin;
  }
  for (size_t i = 0; i < batch.size(); ++i) out[bin_of[i]].push_back(batch[i]);
  return out;
}

}  // namespace dlsim::data
