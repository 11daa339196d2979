// The compression-selector registry: one line per policy.
#include "dlsim/studies/compress/selector.h"

namespace dlsim::compress {

void RegisterSelectors(SelectorRegistry& reg) {
  reg.RegisterBuiltin("fp32", "No compression: each tensor's fastest uncompressed scheme (BytePS FP32)",
                      [] { return MakeFp32Selector(); });
  reg.RegisterBuiltin(
      "hipress",
      "HiPress-like: every tensor over 2^20 elements compressed on the GPU (flat A2A/AG), others FP32",
      [] { return MakeHiPressSelector(); });
  reg.RegisterBuiltin("espresso-gpu",
                      "Espresso Algorithm 1: greedy GPU options by tensor size, bubble removal",
                      [] { return MakeEspressoSelector(false); });
  reg.RegisterBuiltin("espresso", "Espresso: Algorithm 1 then Algorithm 2 (optimal CPU offload by groups)",
                      [] { return MakeEspressoSelector(true); });
  reg.RegisterBuiltin("brute-force", "Every combination of distinct options per tensor (small models only)",
                      [] { return MakeBruteForceSelector(); });
}

}  // namespace dlsim::compress
