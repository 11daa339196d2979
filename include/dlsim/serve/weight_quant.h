// Weight-only quantization of a served model's linear layers (`model.weight_dtype: int4` or `int8`).
//
// GPTQ / AWQ checkpoints (and vLLM's RTN) store each linear weight in 4 or 8 bits, in groups of 128 along K
// with one 16-bit scale per group, and vLLM runs them with Marlin's W4A16 / W8A16 kernels (IST-DASLab,
// PPoPP'25; 8-bit weights since vLLM's gptq_marlin): the kernel streams the packed weights from HBM,
// dequantizes them in registers and multiplies on the 16-bit tensor cores, so a GEMM costs
//   memory  = (m k + m n) x 2 + k n x (bits / 8 + 2 / 128) bytes
//   compute = the dense fp16 GEMM's (same FLOPs, wave fill and K efficiency)
//   time    = overhead + max(compute, memory)
// which is cost::SparseWeightGemmSeconds at sparsity 0 with a format of 4.125 (8.125) bits a weight and no
// expansion term (the dequantization hides under the loads: Marlin's design, and its published A10 timings
// below). The embeddings and the LM head stay 16-bit (GPTQ / AWQ quantize the decoder's linear layers only).
// Activations stay 16-bit: int8 here is W8A16, not SmoothQuant's W8A8.
//
// Checked against Marlin's published A10 timings (data/profiles/published/marlin/README.md;
// tests/serve/weight_quant_test.cc): dlsim's int4 / fp16 speed-up is within 5% of the measured one on the
// paper's 72K x 18K GEMM at batch 1-32 and 128 and on five models' layers at batch 16, 7% low at batch 64.
//
// The 8-bit rule has no kernel-level check of its own (no published W8A16 timings beyond humming's three H100
// rows, docs/validation.md "serving-vllm-public-latency"); vLLM PR #23197's end-to-end int8 rows score it.
//
//   double bytes = serve::LinearWeightBytes(hw::DType::kFp16, serve::WeightQuant::kInt4);  // 0.515625
//
// Pure functions; thread-safe.
#ifndef DLSIM_SERVE_WEIGHT_QUANT_H_
#define DLSIM_SERVE_WEIGHT_QUANT_H_

#include <string_view>
#include <utility>

#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::serve {

enum class WeightQuant {
  kNone,  // the linear weights are stored in the weight dtype
  kInt4,  // 4-bit weights, groups of 128 with a 16-bit scale (GPTQ / AWQ / RTN), Marlin W4A16 kernels
  kInt8,  // 8-bit weights, groups of 128 with a 16-bit scale (GPTQ / RTN), Marlin W8A16 kernels
};

inline constexpr int kQuantGroupSize = 128;

// A precision `model.weight_dtype` names: the stored dtype and the weight-only quantization (quantized
// weights are read as fp16: the activations and the tensor cores stay 16-bit).
struct WeightPrecision {
  hw::DType dtype = hw::DType::kFp16;
  WeightQuant quant = WeightQuant::kNone;
};

// Every name `model.weight_dtype` takes (the scenario reader and the validation CSV read through it).
inline constexpr std::pair<std::string_view, WeightPrecision> kWeightPrecisionNames[] = {
    {"fp16", {hw::DType::kFp16, WeightQuant::kNone}}, {"bf16", {hw::DType::kBf16, WeightQuant::kNone}},
    {"fp8", {hw::DType::kFp8, WeightQuant::kNone}},   {"int4", {hw::DType::kFp16, WeightQuant::kInt4}},
    {"int8", {hw::DType::kFp16, WeightQuant::kInt8}},
};

// The scenario's name of a quantization: "int4", "int8" ("" for kNone).
const char* WeightQuantName(WeightQuant q);

// Bytes per stored linear-layer weight: the dtype's, or bits / 8 + 2 / 128 when quantized.
double LinearWeightBytes(hw::DType weight_dtype, WeightQuant q);

// The kernel's weight format for ComputeModel::SparseWeightGemm at sparsity 0: 4.125 or 8.125 bits a weight,
// expanded for free (the dequantization overlaps the loads). Precondition: q != kNone.
cost::SparseWeightFormat QuantizedWeightFormat(WeightQuant q);

// Whether `gpu` runs Marlin's kernels: compute capability 8.0 or newer (Ampere, Ada, Hopper, Blackwell;
// vLLM's gptq_marlin / awq_marlin need it).
bool RunsMarlinWeights(const hw::GpuSpec& gpu);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_WEIGHT_QUANT_H_
