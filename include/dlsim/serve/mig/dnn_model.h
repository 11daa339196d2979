// DNN inference services that are not LLMs (ResNet-50, BERT, a recommendation MLP): one forward
// pass of a batch as a list of kernels that a cost::ComputeModel prices. Used by MIG serving
// (serve/mig_serving.h) to profile a model on every MIG instance size.
//
//   serve::DnnModelRegistry reg("dnn-model");
//   serve::RegisterDnnModels(reg, catalogs.models);        // resnet50, bert-base, ...
//   auto m = reg.Create("resnet50");                      // Result<unique_ptr<DnnModel>>
//   std::vector<serve::DnnOp> ops = (*m)->Ops(/*batch=*/8);
//
// Kernels are what an inference engine (TensorRT-like) runs: convolutions as implicit GEMMs
// (M = batch x output pixels, N = output channels, K = input channels x kernel area) with
// batch-norm folded into the weights and the ReLU fused; residual adds, pooling, layer norms,
// softmax-free GELU and embedding gathers as memory-bound kernels. Models are immutable; const
// methods are thread-safe.
#ifndef DLSIM_SERVE_MIG_DNN_MODEL_H_
#define DLSIM_SERVE_MIG_DNN_MODEL_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/units.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/model/model_spec.h"

namespace dlsim::serve {

// One kernel of a forward pass.
struct DnnOp {
  enum class Kind { kGemm, kAttention, kMemory };
  Kind kind = Kind::kGemm;
  std::string name;                // "conv2_1.a", "layer3.qkv", ... (for breakdowns)
  cost::GemmShape gemm;            // kGemm
  cost::AttentionShape attention;  // kAttention
  Bytes moved;                     // kMemory: bytes read + written
  Flops flops;                     // kMemory: vector arithmetic
  cost::MemoryKind memory_kind = cost::MemoryKind::kElementwise;
};

class DnnModel {
 public:
  virtual ~DnnModel() = default;
  virtual std::string_view name() const = 0;
  // Kernels of one forward pass over `batch` requests (precondition: batch >= 1).
  virtual std::vector<DnnOp> Ops(int batch) const = 0;
  // Weights resident on the device (and embedding tables), in the model's data type.
  virtual Bytes WeightBytes() const = 0;
  // Peak activation memory of a forward pass over `batch` requests (two live tensors).
  virtual Bytes ActivationBytes(int batch) const = 0;
  virtual hw::DType dtype() const { return hw::DType::kFp16; }
};

// Model FLOPs of one forward pass (GEMMs and attention; memory-bound kernels excluded).
Flops ForwardFlops(const DnnModel& m, int batch);

using DnnModelRegistry = Registry<DnnModel>;

// Builtins: "resnet50" (He et al. 2016, 224x224, FP16), "bert-base" and "bert-large" (encoder
// shapes from the model catalog, 128-token requests, FP16), "dlrm-mlp" (MLPerf DLRM's MLPs and
// dot interaction over 26 tables of 128-wide FP16 embeddings, 100,000 rows each: a choice, see
// docs/serving.md). A BERT entry is registered only when `models` has its shape.
void RegisterDnnModels(DnnModelRegistry& reg, const model::ModelCatalog& models);

// Direct constructors. MakeEncoderDnn: a BERT-style encoder of `spec` over requests of
// `seq_len` tokens (no MLM head; a pooled classification output).
std::unique_ptr<DnnModel> MakeResNet50Dnn();
std::unique_ptr<DnnModel> MakeEncoderDnn(const model::ModelSpec& spec, int seq_len);
std::unique_ptr<DnnModel> MakeRecommendationMlpDnn();

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_MIG_DNN_MODEL_H_
