// Spindle's scalability estimator: the time of one layer of a MetaOp as a function of the devices it
// gets, with the parallel configuration used at each count, priced by dlsim's training cost model
// (train/chunk_cost.h: model/layer_graph.h operators on the compute model, tensor-parallel
// collectives on the network model).
//
// On n devices a MetaOp may run data parallel (dp replicas, each ceil(samples / dp) samples) times
// tensor parallel (tp ranks inside a node, sequence parallel where the tokens divide): every (dp, tp)
// with dp * tp <= n, dp <= samples, tp a power of two up to the node size that divides the heads. The
// point at n is the fastest of them (ties: fewer devices, then smaller tp), so the curve never rises
// with n. Gradient all-reduce is not in it: a module's gradients are reduced once per step over
// every device that ran it (multitask/wavefront.h, parameter synchronisation).
//
//   multitask::ScalabilityEstimator est(ctx, {});
//   multitask::ScalingCurve c = est.Estimate(graph.ops[0], workload, 64);
//   c.at(16).total();  c.at(16).config.tp;
//
// Const methods thread-safe given a thread-safe context (train's models are); curves are values.
#ifndef DLSIM_STUDIES_MULTITASK_SCALABILITY_H_
#define DLSIM_STUDIES_MULTITASK_SCALABILITY_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/studies/multitask/workload.h"
#include "dlsim/train/options.h"
#include "dlsim/train/step_context.h"

namespace dlsim::multitask {

struct ParallelConfig {
  int dp = 1, tp = 1;
  int devices() const { return dp * tp; }
  bool operator==(const ParallelConfig&) const = default;
};

// One layer of a MetaOp for its whole batch on one configuration: the slowest replica's times.
struct ScalePoint {
  bool feasible = false;
  ParallelConfig config;  // devices() <= the count the point is for
  Duration fwd, bwd;      // forward; backward with its recomputation
  Duration tp_comm;       // exposed tensor-parallel communication in fwd + bwd
  Bytes saved;            // activations one device keeps for the backward
  Flops model_flops;      // one device's forward + backward model FLOPs (3 x forward, no recomputation)
  Duration total() const { return fwd + bwd; }
};

struct ScalingCurve {
  std::vector<ScalePoint> points;  // points[n - 1]: the best on at most n devices, n = 1..max
  Flops model_flops;               // one layer, whole batch, forward + backward (3 x forward)
  const ScalePoint& at(int n) const { return points[static_cast<size_t>(n) - 1]; }
  int max_devices() const { return static_cast<int>(points.size()); }
  // Per-layer forward + backward time on 1..max devices; Duration::Max() where nothing fits.
  std::vector<Duration> Totals() const;
};

struct PricingOptions {
  hw::DType precision = hw::DType::kBf16;
  model::AttentionImpl attention = model::AttentionImpl::kFlash;
  train::Recompute recompute = train::Recompute::kNone;
  bool sequence_parallel = true;  // with tp > 1 when tp divides the tokens per sample (Megatron-LM)
  // Raise each layer to the framework's host launch time (train::StepContext::layer_host_time, fitted
  // end to end); false prices the kernels only (multitask::Simulate zeroes the context's floor).
  bool host_floor = true;
  std::string compute_model_name;  // for the record only (the context's model prices)
};

class ScalabilityEstimator {
 public:
  // Borrows `ctx` (its compute and collective models, node size, host floor); must outlive this.
  ScalabilityEstimator(const train::StepContext& ctx, PricingOptions o);
  // One layer on exactly `c`; nullopt when the configuration is not allowed (dp > samples, tp not a
  // power of two up to the node, tp not dividing the heads, KV heads not divisible either way).
  std::optional<ScalePoint> Price(const MetaOp& op, const Workload& w, ParallelConfig c) const;
  // The curve on 1..max_devices. Precondition: max_devices >= 1.
  ScalingCurve Estimate(const MetaOp& op, const Workload& w, int max_devices) const;

 private:
  // One replica of `samples` samples on tp ranks (the configuration already checked).
  ScalePoint PriceReplica(const MetaOp& op, const Workload& w, int samples, int tp) const;
  bool TpAllowed(const MetaOp& op, const Workload& w, int tp) const;
  const train::StepContext& ctx_;
  PricingOptions o_;
};

}  // namespace dlsim::multitask

#endif  // DLSIM_STUDIES_MULTITASK_SCALABILITY_H_
