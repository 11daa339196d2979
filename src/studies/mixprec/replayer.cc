// Operators, per-op precision costs, casts, the replayer (include/dlsim/studies/mixprec/replayer.h).
#include "dlsim/studies/mixprec/replayer.h"

#include <algorithm>

namespace dlsim::mixprec {
namespace {

PrecOp Gemm(const std::string& name, int layer, int64_t m, int64_t n, int64_t k, int64_t batch, bool weight) {
  PrecOp op;
  op.name = name;
  op.layer = layer;
  op.kind = OpKind::kGemm;
  op.gemm = {.m = m, .n = n, .k = k, .batch = batch};
  op.out_elements = static_cast<double>(m) * n * batch;
  op.weight_elements = weight ? static_cast<double>(k) * n : 0;
  op.int8_capable = true;
  return op;
}

PrecOp Elementwise(const std::string& name, int layer, double elements) {
  PrecOp op;
  op.name = name;
  op.layer = layer;
  op.kind = OpKind::kMemoryBound;
  op.elements = 2 * elements;  // read and write
  op.out_elements = elements;
  return op;
}

double Perturbation(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return 0;
    case Precision::kFp16:
      return 1;
    case Precision::kInt8:
      return kInt8Perturbation;
  }
  return 0;
}

}  // namespace

const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kInt8:
      return "int8";
    case Precision::kFp16:
      return "fp16";
    case Precision::kFp32:
      return "fp32";
  }
  return "?";
}

int BytesPerElement(Precision p) { return p == Precision::kInt8 ? 1 : p == Precision::kFp16 ? 2 : 4; }

hw::DType ToDType(Precision p) {
  return p == Precision::kInt8   ? hw::DType::kInt8
         : p == Precision::kFp16 ? hw::DType::kFp16
                                 : hw::DType::kFp32;
}

std::vector<PrecOp> BertEncoderOps(const BertShape& s) {
  std::vector<PrecOp> ops;
  const int64_t t = static_cast<int64_t>(s.batch) * s.seq, h = s.hidden, d = s.hidden / s.heads;
  const int64_t bh = static_cast<int64_t>(s.batch) * s.heads;
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + ".";
    ops.push_back(Gemm(p + "qkv", l, t, 3 * h, h, 1, true));
    ops.push_back(Gemm(p + "scores", l, s.seq, s.seq, d, bh, false));
    ops.push_back(Elementwise(p + "softmax", l, static_cast<double>(bh) * s.seq * s.seq));
    ops.push_back(Gemm(p + "context", l, s.seq, d, s.seq, bh, false));
    ops.push_back(Gemm(p + "proj", l, t, h, h, 1, true));
    ops.push_back(Elementwise(p + "ln1", l, static_cast<double>(t) * h));
    ops.push_back(Gemm(p + "ffn1", l, t, s.ffn, h, 1, true));
    ops.push_back(Elementwise(p + "gelu", l, static_cast<double>(t) * s.ffn));
    ops.push_back(Gemm(p + "ffn2", l, t, h, s.ffn, 1, true));
    ops.push_back(Elementwise(p + "ln2", l, static_cast<double>(t) * h));
  }
  return ops;
}

bool Allowed(const PrecOp& op, Precision p, const hw::GpuSpec& gpu) {
  if (p == Precision::kInt8) return op.int8_capable && gpu.Supports(hw::DType::kInt8);
  return gpu.Supports(ToDType(p)) || p == Precision::kFp32;
}

Duration OpTime(const PrecOp& op, Precision p, const cost::ComputeModel& gpu) {
  if (op.kind == OpKind::kGemm) return gpu.Gemm(op.gemm, ToDType(p)) * int64_t{3};  // forward, dgrad, wgrad
  const Bytes moved = ByteCount(op.elements * BytesPerElement(p));
  return gpu.MemoryBound(moved, FlopCount(op.elements)) * int64_t{3};  // forward, backward (2x the bytes)
}

Duration CastTime(double elements, Precision from, Precision to, const cost::ComputeModel& gpu) {
  if (from == to) return Duration::Zero();
  const Bytes moved = ByteCount(elements * (BytesPerElement(from) + BytesPerElement(to)));
  return gpu.MemoryBound(moved, FlopCount(elements)) *
         int64_t{2};  // the activation forward, its gradient backward
}

Duration ReplayIteration(const std::vector<PrecOp>& ops, const Plan& plan, const cost::ComputeModel& gpu) {
  Duration t;
  for (size_t i = 0; i < ops.size(); ++i) {
    t += OpTime(ops[i], plan[i], gpu);
    if (i > 0) t += CastTime(ops[i - 1].out_elements, plan[i - 1], plan[i], gpu);
  }
  return t;
}

Bytes PlanMemory(const std::vector<PrecOp>& ops, const Plan& plan) {
  double bytes = 0;
  for (size_t i = 0; i < ops.size(); ++i)
    bytes += 16 * ops[i].weight_elements + ops[i].out_elements * BytesPerElement(plan[i]);
  return ByteCount(bytes);
}

double IndicatorLoss(const std::vector<PrecOp>& ops, const Plan& plan) {
  double loss = 0;
  for (size_t i = 0; i < ops.size(); ++i) loss += ops[i].sensitivity * Perturbation(plan[i]);
  return loss;
}

}  // namespace dlsim::mixprec
