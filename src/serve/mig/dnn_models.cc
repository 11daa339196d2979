// The builtin DNN services: ResNet-50, BERT encoders and a DLRM-style recommendation MLP.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/serve/mig/dnn_model.h"

namespace dlsim::serve {
namespace {

constexpr double kFp16Bytes = 2.0;

DnnOp Gemm(std::string name, int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  DnnOp op;
  op.kind = DnnOp::Kind::kGemm;
  op.name = std::move(name);
  op.gemm = {.m = m, .n = n, .k = k, .batch = batch};
  return op;
}

DnnOp Memory(std::string name, double elements, double flops_per_element,
             cost::MemoryKind kind = cost::MemoryKind::kElementwise) {
  DnnOp op;
  op.kind = DnnOp::Kind::kMemory;
  op.name = std::move(name);
  op.moved = Bytes(elements * kFp16Bytes);
  op.flops = Flops(elements * flops_per_element);
  op.memory_kind = kind;
  return op;
}

// ResNet-50 v1.5 (torchvision; the stride of a down-sampling block on its 3x3 convolution),
// 224 x 224 inputs: 4.09 GMACs and 25.6 M parameters per image.
class ResNet50 final : public DnnModel {
 public:
  std::string_view name() const override { return "resnet50"; }

  std::vector<DnnOp> Ops(int batch) const override {
    std::vector<DnnOp> ops;
    const int64_t b = batch;
    // An implicit GEMM whose 3 input channels cuDNN pads for its tensor-core kernels: not a misaligned
    // cuBLAS GEMM (cost::GemmLayout::kKernelManaged).
    DnnOp conv1 = Gemm("conv1", b * 112 * 112, 64, 3 * 7 * 7);
    conv1.gemm.layout = cost::GemmLayout::kKernelManaged;
    ops.push_back(conv1);
    ops.push_back(Memory("maxpool", b * (64.0 * 112 * 112 + 64.0 * 56 * 56), 9.0 / 5));
    int64_t in = 64, hw = 56;
    for (const Stage& s : kStages) {
      for (int blk = 0; blk < s.blocks; ++blk) {
        const std::string tag = "stage" + std::to_string(s.index) + "." + std::to_string(blk);
        const int64_t in_hw = blk == 0 ? hw : s.hw, out_hw = s.hw;
        ops.push_back(Gemm(tag + ".a", b * in_hw * in_hw, s.mid, in));
        ops.push_back(Gemm(tag + ".b", b * out_hw * out_hw, s.mid, s.mid * 9));
        ops.push_back(Gemm(tag + ".c", b * out_hw * out_hw, s.out, s.mid));
        if (blk == 0) ops.push_back(Gemm(tag + ".down", b * out_hw * out_hw, s.out, in));
        ops.push_back(Memory(tag + ".add_relu", 3.0 * b * s.out * out_hw * out_hw, 2.0 / 3));
        in = s.out;
      }
      hw = s.hw;
    }
    ops.push_back(Memory("avgpool", b * (2048.0 * 49 + 2048.0), 1.0));
    ops.push_back(Gemm("fc", b, 1000, 2048));
    return ops;
  }

  Bytes WeightBytes() const override { return Bytes(25.557e6 * kFp16Bytes); }
  // The largest live pair: a stage-1 block's 256 x 56 x 56 output and its input.
  Bytes ActivationBytes(int batch) const override { return Bytes(2.0 * batch * 256 * 56 * 56 * kFp16Bytes); }

 private:
  struct Stage {
    int index, blocks;
    int64_t mid, out, hw;
  };
  static constexpr Stage kStages[] = {
      {1, 3, 64, 256, 56}, {2, 4, 128, 512, 28}, {3, 6, 256, 1024, 14}, {4, 3, 512, 2048, 7}};
};

// A BERT-style encoder over `seq_len`-token requests: embeddings, `layers` post-LN layers, pooler.
class Encoder final : public DnnModel {
 public:
  Encoder(model::ModelSpec spec, int seq_len) : spec_(std::move(spec)), seq_(seq_len) {}
  std::string_view name() const override { return spec_.name; }

  std::vector<DnnOp> Ops(int batch) const override {
    const int64_t t = static_cast<int64_t>(batch) * seq_, h = spec_.hidden, f = spec_.ffn_hidden;
    std::vector<DnnOp> ops;
    ops.push_back(Memory("embeddings", 4.0 * t * h, 3.0, cost::MemoryKind::kGather));
    for (int l = 0; l < spec_.layers; ++l) {
      const std::string tag = "layer" + std::to_string(l);
      ops.push_back(Gemm(tag + ".qkv", t, 3 * h, h));
      DnnOp att;
      att.kind = DnnOp::Kind::kAttention;
      att.name = tag + ".attention";
      att.attention = {.batch = batch,
                       .heads = spec_.heads,
                       .kv_heads = spec_.heads,
                       .seq_q = seq_,
                       .seq_kv = seq_,
                       .head_dim = spec_.head_dim(),
                       .causal = false};
      ops.push_back(att);
      ops.push_back(Gemm(tag + ".out", t, h, h));
      ops.push_back(Memory(tag + ".add_norm1", 3.0 * t * h, 8.0 / 3, cost::MemoryKind::kNormalization));
      ops.push_back(Gemm(tag + ".ffn_up", t, f, h));
      ops.push_back(Memory(tag + ".gelu", 2.0 * t * f, 4.0));
      ops.push_back(Gemm(tag + ".ffn_down", t, h, f));
      ops.push_back(Memory(tag + ".add_norm2", 3.0 * t * h, 8.0 / 3, cost::MemoryKind::kNormalization));
    }
    ops.push_back(Gemm("pooler", batch, h, h));
    return ops;
  }

  Bytes WeightBytes() const override {
    return Bytes((spec_.layers * spec_.LayerParameters() + spec_.EmbeddingParameters()) * kFp16Bytes);
  }
  Bytes ActivationBytes(int batch) const override {
    const double t = static_cast<double>(batch) * seq_;
    return Bytes(t * (2.0 * spec_.hidden + std::max<double>(spec_.ffn_hidden, 3.0 * spec_.hidden)) *
                 kFp16Bytes);
  }

 private:
  model::ModelSpec spec_;
  int seq_;
};

// MLPerf Inference DLRM's network (bottom MLP 13-512-256-128, 26 sparse features of 128 wide,
// dot interaction of the 27 vectors, top MLP 479-1024-1024-512-256-1) with 100,000-row tables
// instead of the Criteo Terabyte tables (~98 GB, larger than any MIG instance).
class RecommendationMlp final : public DnnModel {
 public:
  std::string_view name() const override { return "dlrm-mlp"; }

  std::vector<DnnOp> Ops(int batch) const override {
    std::vector<DnnOp> ops;
    AddMlp("bottom", {13, 512, 256, 128}, batch, ops);
    ops.push_back(Memory("embedding_bag", 2.0 * batch * kTables * kDim, 0.0, cost::MemoryKind::kGather));
    ops.push_back(Gemm("interaction", kTables + 1, kTables + 1, kDim, batch));
    AddMlp("top", {479, 1024, 1024, 512, 256, 1}, batch, ops);
    return ops;
  }

  Bytes WeightBytes() const override {
    double params = static_cast<double>(kTables) * kRows * kDim;
    for (const auto* mlp : {&kBottom, &kTop})
      for (size_t i = 1; i < mlp->size(); ++i) params += (*mlp)[i - 1] * (*mlp)[i] + (*mlp)[i];
    return Bytes(params * kFp16Bytes);
  }
  Bytes ActivationBytes(int batch) const override {
    return Bytes(2.0 * batch * (kTables + 1) * kDim * kFp16Bytes + 2.0 * batch * 1024 * kFp16Bytes);
  }

 private:
  static constexpr int64_t kTables = 26, kDim = 128, kRows = 100'000;
  static inline const std::vector<int64_t> kBottom = {13, 512, 256, 128};
  static inline const std::vector<int64_t> kTop = {479, 1024, 1024, 512, 256, 1};

  static void AddMlp(const std::string& tag, const std::vector<int64_t>& widths, int batch,
                     std::vector<DnnOp>& ops) {
    for (size_t i = 1; i < widths.size(); ++i)
      ops.push_back(Gemm(tag + std::to_string(i), batch, widths[i], widths[i - 1]));
  }
};

}  // namespace

Flops ForwardFlops(const DnnModel& m, int batch) {
  Flops f;
  for (const DnnOp& op : m.Ops(batch)) {
    if (op.kind == DnnOp::Kind::kGemm) f += op.gemm.flops();
    if (op.kind == DnnOp::Kind::kAttention) f += op.attention.ForwardFlops();
  }
  return f;
}

std::unique_ptr<DnnModel> MakeResNet50Dnn() { return std::make_unique<ResNet50>(); }
std::unique_ptr<DnnModel> MakeEncoderDnn(const model::ModelSpec& spec, int seq_len) {
  return std::make_unique<Encoder>(spec, seq_len);
}
std::unique_ptr<DnnModel> MakeRecommendationMlpDnn() { return std::make_unique<RecommendationMlp>(); }

void RegisterDnnModels(DnnModelRegistry& reg, const model::ModelCatalog& models) {
  reg.RegisterBuiltin("resnet50", "ResNet-50 v1.5, 224x224 images, FP16 (4.09 GMACs per image)",
                      [] { return MakeResNet50Dnn(); });
  for (const char* name : {"bert-base", "bert-large"}) {
    Result<const model::ModelSpec*> spec = models.Find(name);
    if (!spec.ok()) continue;
    reg.RegisterBuiltin(name, std::string(name) + " encoder (model catalog shape), 128-token requests, FP16",
                        [s = **spec] { return MakeEncoderDnn(s, 128); });
  }
  reg.RegisterBuiltin("dlrm-mlp",
                      "MLPerf DLRM's MLPs and dot interaction, 26 x 100,000-row x 128 FP16 embeddings",
                      [] { return MakeRecommendationMlpDnn(); });
}

}  // namespace dlsim::serve
