// Baseline strategies: FP32 (BytePS without compression: each tensor's fastest uncompressed scheme) and
// HiPress-like (every large tensor compressed on the GPU with one fixed flat scheme).
#include <memory>

#include "dlsim/studies/compress/selector.h"

namespace dlsim::compress {
namespace {

// HiPress's compression-aware synchronisation on a flat group: compress, exchange shards (all-to-all),
// decompress-aggregate-recompress, all-gather, decompress; all on the GPU.
constexpr const char* kHiPress = "flat: gpu-comp | A2A* | gpu-decomp | gpu-comp | AG* | gpu-decomp";

class Fp32 final : public Selector {
 public:
  Result<Selection> Select(Evaluator& ev) const override {
    Selection s;
    for (int i = 0; i < ev.tensors(); ++i) s.options.push_back(BestUncompressed(ev, i));
    s.timeline = ev.Run(s.options);
    s.evaluations = 1;
    return s;
  }
};

class HiPress final : public Selector {
 public:
  explicit HiPress(double large) : large_(large) {}
  Result<Selection> Select(Evaluator& ev) const override {
    DLSIM_ASSIGN_OR_RETURN(const int hipress, ev.Find(kHiPress));
    Selection s;
    const auto& tensors = *ev.problem().tensors;
    for (int i = 0; i < ev.tensors(); ++i)
      s.options.push_back(tensors[i].elements > large_ ? hipress : BestUncompressed(ev, i));
    s.timeline = ev.Run(s.options);
    s.evaluations = 1;
    return s;
  }

 private:
  double large_;
};

}  // namespace

std::unique_ptr<Selector> MakeFp32Selector() { return std::make_unique<Fp32>(); }
std::unique_ptr<Selector> MakeHiPressSelector(double large_elements) {
  return std::make_unique<HiPress>(large_elements);
}

}  // namespace dlsim::compress
