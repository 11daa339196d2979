// The registered recommendation-training systems: one line each (include/dlsim/studies/recsys/iteration.h).
#include <memory>

#include "dlsim/studies/recsys/iteration.h"

namespace dlsim::recsys {
namespace {

enum class Arch { kParameterServer, kGpuCentric };

// An architecture with some optimisations forced on. PICASSO's interleaving uses at least
// `micro_batches` micro-batches; the caller's hit ratio is the measured one.
class System final : public TrainingSystem {
 public:
  System(Arch a, bool pack, int mb, bool cache) : arch_(a), pack_(pack), mb_(mb), cache_(cache) {}
  IterationBreakdown Price(const RecModel& m, const RecCluster& c, Knobs k) const override {
    k.packing = k.packing || pack_;
    k.micro_batches = std::max(k.micro_batches, mb_);
    if (!cache_) k.hit_ratio = 0;
    return arch_ == Arch::kParameterServer ? PriceParameterServer(m, c, k) : PriceGpuCentric(m, c, k);
  }

 private:
  Arch arch_;
  bool pack_;
  int mb_;
  bool cache_;
};

}  // namespace

void RegisterSystems(SystemRegistry& reg) {
  reg.RegisterBuiltin("tf-ps", "TensorFlow parameter server: rows pulled and pushed per variable, no cache",
                      [] { return std::make_unique<System>(Arch::kParameterServer, false, 1, false); });
  reg.RegisterBuiltin("gpu-centric", "Tables sharded over GPUs, all-to-all per table, no optimisation",
                      [] { return std::make_unique<System>(Arch::kGpuCentric, false, 1, false); });
  reg.RegisterBuiltin("picasso", "GPU-centric with packing, 4-way interleaving and the GPU hot-row cache",
                      [] { return std::make_unique<System>(Arch::kGpuCentric, true, 4, true); });
}

}  // namespace dlsim::recsys
