#include "gemm_override_model.h"

namespace dlsim::cost::internal {

GemmOverrideModel::GemmOverrideModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal)
    : base_(MakeRooflineComputeModel(gpu, cal)) {
  for (int i = 0; i < hw::kNumDTypes; ++i) {
    devices_[i] = TileDevice::Of(gpu, static_cast<hw::DType>(i));
    feasible_[i] = FeasibleTiles(static_cast<hw::DType>(i), devices_[i]);
  }
}

Duration GemmOverrideModel::Gemm(const GemmShape& s, hw::DType dt) const {
  if (s.flops().value() <= 0) return Duration();
  const int i = static_cast<int>(dt);
  if (feasible_[i].empty()) return base_->Gemm(s, dt);  // no template fits this device's limits
  const Key key{s.m, s.n, s.k, s.batch, i};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  }
  const Duration t = Seconds(GemmSeconds(s, dt, devices_[i], feasible_[i]));
  std::lock_guard<std::mutex> lock(mu_);
  cache_.emplace(key, t);
  return t;
}

}  // namespace dlsim::cost::internal
