// The "learned" compute model: GEMM latency = tile-model time x exp(tree ensemble(features))
// (cost/gemm_features.h, cost/tree_ensemble.h); attention and memory-bound kernels as the
// roofline model. Without a loaded ensemble GEMMs are the tile model's, and name() says so.
#include <cmath>

#include "dlsim/cost/gemm_features.h"
#include "dlsim/cost/tree_ensemble.h"
#include "gemm_override_model.h"

namespace dlsim::cost {
namespace {

class LearnedComputeModel final : public internal::GemmOverrideModel {
 public:
  LearnedComputeModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal)
      : GemmOverrideModel(gpu, cal), ensemble_(cal.learned_gemm) {}
  std::string_view name() const override { return ensemble_ ? "learned" : "learned (no model loaded: tile)"; }

 protected:
  double GemmSeconds(const GemmShape& s, hw::DType dt, const TileDevice& dev,
                     const std::vector<TileConfig>& feasible) const override {
    double tile_s = 0;
    const std::vector<double> x = GemmFeatures(s, dt, dev, feasible, &tile_s);
    return tile_s * (ensemble_ ? std::exp(ensemble_->Predict(x)) : 1.0);
  }

 private:
  std::shared_ptr<const TreeEnsemble> ensemble_;
};

}  // namespace

std::unique_ptr<ComputeModel> MakeLearnedComputeModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal) {
  return std::make_unique<LearnedComputeModel>(gpu, cal);
}

}  // namespace dlsim::cost
