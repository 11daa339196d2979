// The "tile" compute model: GEMMs priced by Bolt-style template search over the tile-level
// kernel model (tile_search.h); attention and memory-bound kernels as the roofline model.
#include "gemm_override_model.h"

namespace dlsim::cost {
namespace {

class TileComputeModel final : public internal::GemmOverrideModel {
 public:
  TileComputeModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal)
      : GemmOverrideModel(gpu, cal), tile_(ResolveArchCalibration(gpu, cal).tile) {}
  std::string_view name() const override { return "tile"; }

 protected:
  double GemmSeconds(const GemmShape& s, hw::DType dt, const TileDevice& dev,
                     const std::vector<TileConfig>& feasible) const override {
    return SearchTile(s, dt, dev, tile_, feasible).estimate.seconds;
  }

 private:
  TileCalibration tile_;
};

}  // namespace

std::unique_ptr<ComputeModel> MakeTileComputeModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal) {
  return std::make_unique<TileComputeModel>(gpu, cal);
}

}  // namespace dlsim::cost
