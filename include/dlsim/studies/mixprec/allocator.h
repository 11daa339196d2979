// Precision allocators for the inference-class workers of a hybrid data-parallel job: given the ops,
// the worker's GPU and the time to keep up with (the training workers' iteration), choose a plan.
// Policies behind a registry ("uniform-fp32", "uniform-fp16", "uniform-int8", "qsync";
// `dlsim list precision-allocator`). QSync's greedy: start from the fastest plan that fits in memory,
// then repeatedly raise the precision of the op with the largest indicator reduction per added
// replayed time, while the worker stays within the target and its memory.
//
//   mixprec::AllocatorRegistry reg("precision-allocator");
//   mixprec::RegisterAllocators(reg);
//   auto plan = (*reg.Create("qsync"))->Allocate({&ops, t4_spec, t4_model, target, t4_spec->hbm_capacity});
#ifndef DLSIM_STUDIES_MIXPREC_ALLOCATOR_H_
#define DLSIM_STUDIES_MIXPREC_ALLOCATOR_H_

#include <memory>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/studies/mixprec/replayer.h"

namespace dlsim::mixprec {

struct AllocationRequest {
  const std::vector<PrecOp>* ops = nullptr;   // borrowed
  const hw::GpuSpec* gpu = nullptr;           // borrowed
  const cost::ComputeModel* model = nullptr;  // borrowed, built for *gpu
  Duration target;                            // iteration time to keep up with
  Bytes memory;                               // capacity
};

struct Allocation {
  Plan plan;
  Duration time;  // replayed
  Bytes memory;
  double loss = 0;  // indicator
  bool meets_target = false;
  int raises = 0;  // greedy steps taken (qsync)
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Errors: Infeasible when even the fastest plan does not fit in memory.
  virtual Result<Allocation> Allocate(const AllocationRequest& r) const = 0;
};

using AllocatorRegistry = Registry<Allocator>;
void RegisterAllocators(AllocatorRegistry& reg);

}  // namespace dlsim::mixprec

#endif  // DLSIM_STUDIES_MIXPREC_ALLOCATOR_H_
