// Weight-only quantization; see the header.
#include "dlsim/serve/weight_quant.h"

#include <cmath>

namespace dlsim::serve {

double LinearWeightBytes(hw::DType weight_dtype, WeightQuant q) {
  if (q == WeightQuant::kInt4) return 0.5 + hw::DTypeBytes(hw::DType::kFp16) / kInt4GroupSize;
  return hw::DTypeBytes(weight_dtype);
}

cost::SparseWeightFormat Int4WeightFormat() {
  return {.bytes_per_nonzero = LinearWeightBytes(hw::DType::kFp16, WeightQuant::kInt4),
          .extract_nonzeros_per_sm_s = INFINITY};
}

bool RunsInt4Weights(const hw::GpuSpec& gpu) {
  return gpu.architecture == "ampere" || gpu.architecture == "ada" || gpu.architecture == "hopper" ||
         gpu.architecture == "blackwell";
}

}  // namespace dlsim::serve
