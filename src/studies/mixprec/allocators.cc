// Precision allocators: uniform baselines and QSync's greedy (include/dlsim/studies/mixprec/allocator.h).
#include <memory>

#include "dlsim/studies/mixprec/allocator.h"

namespace dlsim::mixprec {
namespace {

// The lowest allowed precision at or above `p` for op i (fp32 is always allowed).
Precision Clamp(const PrecOp& op, Precision p, const hw::GpuSpec& gpu) {
  for (int q = static_cast<int>(p); q < 2; ++q)
    if (Allowed(op, static_cast<Precision>(q), gpu)) return static_cast<Precision>(q);
  return Precision::kFp32;
}

Allocation Evaluate(const AllocationRequest& r, Plan plan) {
  Allocation a;
  a.time = ReplayIteration(*r.ops, plan, *r.model);
  a.memory = PlanMemory(*r.ops, plan);
  a.loss = IndicatorLoss(*r.ops, plan);
  a.meets_target = a.time <= r.target;
  a.plan = std::move(plan);
  return a;
}

Plan Uniform(const AllocationRequest& r, Precision p) {
  Plan plan;
  for (const PrecOp& op : *r.ops) plan.push_back(Clamp(op, p, *r.gpu));
  return plan;
}

class UniformAllocator final : public Allocator {
 public:
  explicit UniformAllocator(Precision p) : p_(p) {}
  Result<Allocation> Allocate(const AllocationRequest& r) const override {
    Allocation a = Evaluate(r, Uniform(r, p_));
    if (a.memory > r.memory) return Error::Infeasible("uniform plan needs more memory than the GPU has");
    return a;
  }

 private:
  Precision p_;
};

// Replayed time change of raising op i to p: its own cost and the casts to both neighbours.
Duration LocalTime(const AllocationRequest& r, const Plan& plan, size_t i, Precision p) {
  const auto& ops = *r.ops;
  Duration t = OpTime(ops[i], p, *r.model);
  if (i > 0) t += CastTime(ops[i - 1].out_elements, plan[i - 1], p, *r.model);
  if (i + 1 < ops.size()) t += CastTime(ops[i].out_elements, p, plan[i + 1], *r.model);
  return t;
}

class QSyncAllocator final : public Allocator {
 public:
  Result<Allocation> Allocate(const AllocationRequest& r) const override {
    Allocation a = Evaluate(r, Uniform(r, Precision::kInt8));
    if (a.memory > r.memory)
      return Error::Infeasible("even the fastest plan needs more memory than the GPU has");
    int raises = 0;
    while (Raise(r, a)) ++raises;
    a.raises = raises;
    return a;
  }

 private:
  // One greedy step: the raise with the best indicator reduction per added time that keeps the plan
  // within target and memory; false when there is none.
  static bool Raise(const AllocationRequest& r, Allocation& a) {
    const auto& ops = *r.ops;
    double best_score = -1;
    size_t best_i = 0;
    Precision best_p = Precision::kFp32;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (a.plan[i] == Precision::kFp32) continue;
      const Precision p = Clamp(ops[i], static_cast<Precision>(static_cast<int>(a.plan[i]) + 1), *r.gpu);
      Plan trial = a.plan;
      trial[i] = p;
      const Duration added = LocalTime(r, trial, i, p) - LocalTime(r, a.plan, i, a.plan[i]);
      if (a.time + added > r.target || PlanMemory(ops, trial) > r.memory) continue;
      const double gain = IndicatorLoss(ops, a.plan) - IndicatorLoss(ops, trial);
      const double score = gain / std::max(1e-12, added.ToSeconds());
      if (gain > 0 && score > best_score) best_score = score, best_i = i, best_p = p;
    }
    if (best_score < 0) return false;
    Plan next = a.plan;
    next[best_i] = best_p;
    a = Evaluate(r, std::move(next));
    return true;
  }
};

}  // namespace

void RegisterAllocators(AllocatorRegistry& reg) {
  reg.RegisterBuiltin("uniform-fp32", "Every op in fp32",
                      [] { return std::make_unique<UniformAllocator>(Precision::kFp32); });
  reg.RegisterBuiltin("uniform-fp16", "Every op in fp16 (AMP-like; fp32 where fp16 is unsupported)",
                      [] { return std::make_unique<UniformAllocator>(Precision::kFp16); });
  reg.RegisterBuiltin("uniform-int8", "Every int8-capable op in int8, the rest fp16 (uniform quantisation)",
                      [] { return std::make_unique<UniformAllocator>(Precision::kInt8); });
  reg.RegisterBuiltin("qsync", "QSync: fastest plan, then greedy precision raises by indicator gain per time",
                      [] { return std::make_unique<QSyncAllocator>(); });
}

}  // namespace dlsim::mixprec
