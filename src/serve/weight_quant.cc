// Weight-only quantization; see the header.
#include "dlsim/serve/weight_quant.h"

#include <cmath>

namespace dlsim::serve {

const char* WeightQuantName(WeightQuant q) {
  return q == WeightQuant::kInt4 ? "int4" : q == WeightQuant::kInt8 ? "int8" : "";
}

double LinearWeightBytes(hw::DType weight_dtype, WeightQuant q) {
  const double scales = hw::DTypeBytes(hw::DType::kFp16) / kQuantGroupSize;
  if (q == WeightQuant::kInt4) return 0.5 + scales;
  if (q == WeightQuant::kInt8) return 1.0 + scales;
  return hw::DTypeBytes(weight_dtype);
}

cost::SparseWeightFormat QuantizedWeightFormat(WeightQuant q) {
  return {.bytes_per_nonzero = LinearWeightBytes(hw::DType::kFp16, q), .extract_nonzeros_per_sm_s = INFINITY};
}

bool RunsMarlinWeights(const hw::GpuSpec& gpu) {
  return gpu.architecture == "ampere" || gpu.architecture == "ada" || gpu.architecture == "hopper" ||
         gpu.architecture == "blackwell";
}

}  // namespace dlsim::serve
