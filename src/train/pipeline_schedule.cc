#include "dlsim/train/pipeline_schedule.h"

#include <algorithm>
#include <string>

namespace dlsim::train {
namespace {

Status CheckShape(const PipeShape& s) {
  if (s.stages < 1 || s.chunks < 1 || s.micro_batches < 1)
    return Error::Infeasible("pipeline shape needs stages, chunks and micro-batches >= 1");
  return Status::Ok();
}

// All forwards, then all backwards (GPipe).
class GPipe : public PipelineSchedule {
 public:
  Result<PipeOrder> Order(const PipeShape& s) const override {
    DLSIM_RETURN_IF_ERROR(CheckShape(s));
    if (s.chunks != 1) return Error::Infeasible("gpipe runs one model chunk per rank (virtual_stages: 1)");
    PipeOrder order(s.stages);
    for (auto& rank : order) {
      for (int i = 0; i < s.micro_batches; ++i) rank.push_back({true, i, 0});
      for (int i = 0; i < s.micro_batches; ++i) rank.push_back({false, i, 0});
    }
    return order;
  }
  std::string_view name() const override { return "gpipe"; }
};

// PipeDream-Flush / 1F1B: rank r runs min(p - r - 1, m) warm-up forwards, then alternates
// one forward and one backward, then drains the remaining backwards.
class OneFOneB : public PipelineSchedule {
 public:
  Result<PipeOrder> Order(const PipeShape& s) const override {
    DLSIM_RETURN_IF_ERROR(CheckShape(s));
    if (s.chunks != 1) return Error::Infeasible("1f1b runs one model chunk per rank; use interleaved");
    PipeOrder order(s.stages);
    for (int r = 0; r < s.stages; ++r) {
      const int warmup = std::min(s.stages - r - 1, s.micro_batches);
      const int steady = s.micro_batches - warmup;
      auto& o = order[r];
      int f = 0, b = 0;
      for (int i = 0; i < warmup; ++i) o.push_back({true, f++, 0});
      for (int i = 0; i < steady; ++i) {
        o.push_back({true, f++, 0});
        o.push_back({false, b++, 0});
      }
      while (b < s.micro_batches) o.push_back({false, b++, 0});
    }
    return order;
  }
  std::string_view name() const override { return "1f1b"; }
};

// Interleaved 1F1B (Narayanan et al. 2021), as in Megatron-LM's
// forward_backward_pipelining_with_interleaving: virtual micro-batch k maps to chunk
// (k mod p*v) / p and micro-batch (k / (p*v)) * p + k mod p; backwards visit chunks in
// reverse. Rank r warms up with (p - r - 1) * 2 + (v - 1) * p forwards.
class Interleaved : public PipelineSchedule {
 public:
  Result<PipeOrder> Order(const PipeShape& s) const override {
    DLSIM_RETURN_IF_ERROR(CheckShape(s));
    const int p = s.stages, v = s.chunks, m = s.micro_batches;
    if (v > 1 && m % p != 0)
      return Error::Infeasible("interleaved schedule needs micro-batches (" + std::to_string(m) +
                               ") divisible by the pipeline size (" + std::to_string(p) + ")");
    const int total = m * v;
    PipeOrder order(p);
    for (int r = 0; r < p; ++r) {
      int warmup = (p - r - 1) * 2 + (v - 1) * p;
      if (v == 1) warmup = p - r - 1;
      warmup = std::min(warmup, total);
      auto fwd = [&](int k) { return PipeTask{true, (k / (p * v)) * p + k % p, (k % (p * v)) / p}; };
      auto bwd = [&](int k) { return PipeTask{false, (k / (p * v)) * p + k % p, v - 1 - (k % (p * v)) / p}; };
      auto& o = order[r];
      int f = 0, b = 0;
      for (int i = 0; i < warmup; ++i) o.push_back(fwd(f++));
      while (f < total) {
        o.push_back(fwd(f++));
        o.push_back(bwd(b++));
      }
      while (b < total) o.push_back(bwd(b++));
    }
    return order;
  }
  std::string_view name() const override { return "interleaved"; }
};

}  // namespace

void RegisterPipelineSchedules(PipelineScheduleRegistry& reg) {
  reg.RegisterBuiltin("gpipe", "GPipe: all forwards, then all backwards (Huang et al. 2019)",
                      [] { return std::make_unique<GPipe>(); });
  reg.RegisterBuiltin("1f1b", "1F1B / PipeDream-Flush: one forward, one backward (Narayanan et al. 2021)",
                      [] { return std::make_unique<OneFOneB>(); });
  reg.RegisterBuiltin("interleaved", "Interleaved 1F1B with virtual stages, Megatron-LM ordering",
                      [] { return std::make_unique<Interleaved>(); });
}

}  // namespace dlsim::train
