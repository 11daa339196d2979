// QSync's model of mixed-precision data-parallel training on hybrid GPUs (Zhao et al., IPDPS'24): an
// operator graph whose operators each run at fp32, fp16 or int8 on each worker, the precision-loss
// indicator, and the replayer that predicts a worker's (and the hybrid job's) iteration time from per-op
// costs plus the casts between operators of different precision.
//
// Per-op costs come from a cost::ComputeModel (the calibrated roofline, docs/cost-model.md) for the op's
// dtype: GEMMs as GEMMs (int8 with int32 accumulation where the GPU has int8 tensor cores), the other
// ops as memory-bound kernels moving their bytes at the precision's width. Backward = 2 x forward GEMMs
// (data and weight gradients), 2 x forward bytes for the memory-bound ops. A cast kernel converts an
// activation between neighbours of different width, forward and backward. The accuracy side is out of
// scope: the indicator is a given per-op weight x a per-precision perturbation (QSync derives the weight
// from gradient and activation statistics; we take it as input).
//
//   std::vector<mixprec::PrecOp> ops = mixprec::BertEncoderOps({.layers = 12, .batch = 32, .seq = 128});
//   mixprec::Plan plan(ops.size(), mixprec::Precision::kFp16);
//   Duration t = mixprec::ReplayIteration(ops, plan, *t4_model);
#ifndef DLSIM_STUDIES_MIXPREC_REPLAYER_H_
#define DLSIM_STUDIES_MIXPREC_REPLAYER_H_

#include <string>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/cost/compute_model.h"

namespace dlsim::mixprec {

enum class Precision { kInt8 = 0, kFp16 = 1, kFp32 = 2 };  // ordered: lower is faster and lossier
const char* PrecisionName(Precision p);
int BytesPerElement(Precision p);
hw::DType ToDType(Precision p);

enum class OpKind { kGemm, kMemoryBound };

struct PrecOp {
  std::string name;  // e.g. "layer3.ffn1"
  int layer = 0;
  OpKind kind = OpKind::kGemm;
  cost::GemmShape gemm;     // kGemm
  double elements = 0;      // kMemoryBound: elements read + written per pass
  double out_elements = 0;  // activation handed to the next op (what a cast converts)
  double weight_elements = 0;
  double sensitivity = 1;     // the indicator's weight (given)
  bool int8_capable = false;  // GEMMs only (LpTorch has int8 linear/conv kernels)
};
using Plan = std::vector<Precision>;

struct BertShape {
  int layers = 12, hidden = 768, heads = 12, ffn = 3072, batch = 32, seq = 128;
};
// The encoder's operators in execution order: per layer qkv, scores, softmax, context, proj, ln1,
// ffn1, gelu, ffn2, ln2. Sensitivity: 1 everywhere (callers set their own).
std::vector<PrecOp> BertEncoderOps(const BertShape& s);

// Forward + backward time of op i at precision p (p must be allowed: int8 only if int8_capable and the
// GPU supports it; the caller checks with Allowed()).
Duration OpTime(const PrecOp& op, Precision p, const cost::ComputeModel& gpu);
// Forward + backward casts of `elements` between two precisions (zero when equal).
Duration CastTime(double elements, Precision from, Precision to, const cost::ComputeModel& gpu);
bool Allowed(const PrecOp& op, Precision p, const hw::GpuSpec& gpu);

// One worker's compute time for one iteration: every op at its precision plus the casts between
// neighbours (a serial stream: the critical path of a chain). Precondition: plan.size() == ops.size().
Duration ReplayIteration(const std::vector<PrecOp>& ops, const Plan& plan, const cost::ComputeModel& gpu);
// Weights, gradients and Adam state (16 B per parameter, fp32 master) plus the activations kept for
// backward at each op's precision.
Bytes PlanMemory(const std::vector<PrecOp>& ops, const Plan& plan);
// sum sensitivity x perturbation(p): perturbation 0 for fp32, 1 for fp16, kInt8Perturbation for int8.
double IndicatorLoss(const std::vector<PrecOp>& ops, const Plan& plan);
// Relative quantisation-noise variance of int8 against fp16: (2^-7 / 2^-10)^2 (ASSUMED: unit roundoff
// of a per-tensor-scaled int8 against fp16's 10-bit mantissa).
inline constexpr double kInt8Perturbation = 64;

}  // namespace dlsim::mixprec

#endif  // DLSIM_STUDIES_MIXPREC_REPLAYER_H_
