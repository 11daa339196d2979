// Private to src/cost: a ComputeModel that prices GEMMs its own way (the tile and learned models)
// and everything else as the roofline model. GEMM results are memoised per (shape, type) under a
// mutex (pure results: the memo's order never matters); a device where no tile template fits
// falls back to the roofline GEMM.
#ifndef DLSIM_SRC_COST_GEMM_OVERRIDE_MODEL_H_
#define DLSIM_SRC_COST_GEMM_OVERRIDE_MODEL_H_

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "dlsim/cost/compute_model.h"
#include "dlsim/cost/tile_search.h"

namespace dlsim::cost::internal {

class GemmOverrideModel : public ComputeModel {
 public:
  GemmOverrideModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal);

  Duration Gemm(const GemmShape& s, hw::DType dt) const final;
  Duration AttentionForward(const AttentionShape& s, hw::DType dt) const final {
    return base_->AttentionForward(s, dt);
  }
  Duration AttentionBackward(const AttentionShape& s, hw::DType dt) const final {
    return base_->AttentionBackward(s, dt);
  }
  Duration AttentionForwardVarlen(const std::vector<AttentionShape>& b, hw::DType dt) const final {
    return base_->AttentionForwardVarlen(b, dt);
  }
  Duration AttentionBackwardVarlen(const std::vector<AttentionShape>& b, hw::DType dt) const final {
    return base_->AttentionBackwardVarlen(b, dt);
  }
  Duration MemoryBound(Bytes moved, Flops flops, MemoryKind kind) const final {
    return base_->MemoryBound(moved, flops, kind);
  }

 protected:
  // Seconds of a non-empty GEMM on `dev`, whose feasible templates are `feasible` (not empty).
  virtual double GemmSeconds(const GemmShape& s, hw::DType dt, const TileDevice& dev,
                             const std::vector<TileConfig>& feasible) const = 0;

 private:
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int>;
  std::unique_ptr<ComputeModel> base_;
  TileDevice devices_[hw::kNumDTypes];
  std::vector<TileConfig> feasible_[hw::kNumDTypes];
  mutable std::mutex mu_;  // guards cache_
  mutable std::map<Key, Duration> cache_;
};

}  // namespace dlsim::cost::internal

#endif  // DLSIM_SRC_COST_GEMM_OVERRIDE_MODEL_H_
