#include "dlsim/cost/training_calibration.h"

namespace dlsim::cost {

ComputeCalibration TrainingCalibration::Apply(const ComputeCalibration& kernel) const {
  ComputeCalibration out = kernel;
  for (const ArchTrainingCalibration& t : archs) {
    for (ArchCalibration& a : out.archs) {
      if (a.architecture != t.architecture) continue;
      if (t.gemm_max_efficiency) {
        for (hw::DType dt : {hw::DType::kFp16, hw::DType::kBf16}) {
          GemmCalibration g = a.Gemm(dt);
          g.max_efficiency = *t.gemm_max_efficiency;
          a.gemm[dt] = g;
        }
      }
      if (t.fp8_gemm_max_efficiency) {
        GemmCalibration g = a.Gemm(hw::DType::kFp8);
        g.max_efficiency = *t.fp8_gemm_max_efficiency;
        a.gemm[hw::DType::kFp8] = g;
      }
      if (t.elementwise_efficiency) a.memory.efficiency = *t.elementwise_efficiency;
      if (t.attention_efficiency) {
        const double ratio = a.attention.bwd_efficiency / a.attention.fwd_efficiency;
        a.attention.fwd_efficiency = *t.attention_efficiency;
        a.attention.bwd_efficiency = *t.attention_efficiency * ratio;
      }
    }
  }
  return out;
}

}  // namespace dlsim::cost
