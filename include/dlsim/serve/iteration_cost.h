// Time of one serving iteration (one forward pass over a batch of prefill
// chunks and decodes).
//
// An IterationCostModel maps the shape of a batch to a per-layer time (the part
// that repeats in every transformer layer and can overlap with weight
// prefetching) and a fixed time (embedding, LM head, pipeline sends). Two
// implementations:
//  - "profiled": token-level operators (QKV/out projections, MLP, norms,
//  rotary, add) from the
//    measured Vidur profiles when the (GPU, model, TP) is profiled, the
//    roofline ComputeModel otherwise; FlashAttention prefill and
//    paged-attention decode (a batched GEMV over the KV cache at the GEMM
//    streaming efficiency) from the roofline model; two TP all-reduces per
//    layer from the collective model. Formulas: docs/serving.md.
//  - "constant": a fixed time per prefill token and per decode iteration
//  (closed-form tests).
//
//   auto cost = serve::MakeProfiledCostModel({.model = m, .gpu = g, .tp = 1,
//   .pp = 1,
//                                             .compute = compute, .collective =
//                                             coll, .profile = p});
//   serve::IterationTime t = cost->Time({.prefill_tokens = 512, .prefill_pairs
//   = 131328,
//                                       .prefill_requests = 1, .logits = 1});
//
// Models are immutable; Time() is const and thread-safe.
#ifndef DLSIM_SERVE_ITERATION_COST_H_
#define DLSIM_SERVE_ITERATION_COST_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/net/collective.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/operator_profile.h"
#include "dlsim/serve/tp_allreduce.h"
#include "dlsim/serve/weight_quant.h"

namespace dlsim::serve {

// What one iteration computes, summed over its requests.
struct BatchShape {
  int64_t prefill_tokens = 0;    // prompt tokens processed (chunks)
  double prefill_pairs = 0;      // causal query-key pairs of the chunks: sum c*kv_before + c(c+1)/2
  int64_t prefill_requests = 0;  // requests with a prefill chunk
  int64_t decode_requests = 0;   // requests generating one token
  int64_t decode_context = 0;    // KV tokens read by the decodes (sum of their lengths)
  int64_t logits = 0;            // positions that sample a token (decodes' + finished prefills')
  int64_t spec_tokens =
      0;  // speculative decoding: draft tokens each decode request verifies (its queries 1 + k)
  // Through a sliding window (SchedulerContext::window > 0): the chunks' pairs a windowed layer computes and
  // the KV tokens its decodes read (sum of min(length, window)); 0 without a window.
  double prefill_window_pairs = 0;
  int64_t decode_window_context = 0;
  int64_t tokens() const { return prefill_tokens + decode_requests * (1 + spec_tokens); }
  // A pure decode iteration of `requests` requests holding `context` KV tokens in all.
  static BatchShape Decode(int64_t requests, int64_t context) {
    BatchShape b;
    b.decode_requests = requests;
    b.decode_context = context;
    b.logits = requests;
    return b;
  }
};

struct IterationTime {
  Duration per_layer;  // one transformer layer on one pipeline stage's GPU
  Duration fixed;      // once per iteration
  // Whole iteration with `layers` layers executed back to back.
  Duration Total(int layers) const { return per_layer * static_cast<int64_t>(layers) + fixed; }
};

class IterationCostModel {
 public:
  virtual ~IterationCostModel() = default;
  virtual IterationTime Time(const BatchShape& b) const = 0;
  // True when the token-level operators come from measured profiles.
  virtual bool profiled() const = 0;
};

// Host-side latency of each TP all-reduce beyond the collective model's
// transfer time (kernel launch and synchronisation without CUDA graphs, NCCL's
// per-step latency): per collective `per_collective + per_ring_step * 2 (tp -
// 1)`. Fitted on SplitwiseSim measurements
// (data/serving/serving_calibration.csv, docs/serving.md); zero = Vidur's 20 us
// launch cost only.
struct CollectiveOverhead {
  Duration per_collective;
  Duration per_ring_step;
  // Large (prefill-sized) all-reduces: extra time per MiB of ring traffic
  // (2 (tp - 1) / tp x message bytes) of the part of each message above
  // `large_message`; the measured all-reduces of thousands of tokens run at a
  // lower bus bandwidth than the collective model's NCCL peak. Zero = none.
  Duration per_large_ring_mib;
  Bytes large_message;
};

struct ProfiledCostInputs {
  model::ModelSpec model;
  hw::GpuSpec gpu;
  int tp = 1;
  int pp = 1;
  int ep = 1;  // MoE models: 1 = every expert split over the tp GPUs, tp = experts spread whole (moe_step.h)
  std::shared_ptr<const cost::ComputeModel> compute;       // required
  std::shared_ptr<const net::CollectiveModel> collective;  // required when tp > 1 or pp > 1
  net::Fabric fabric;                                      // the TP group's links
  const OperatorProfile* profile = nullptr;                // copied; null = roofline
  hw::DType dtype = hw::DType::kFp16;                      // activations (and the all-reduced messages)
  hw::DType weight_dtype = hw::DType::kFp16;  // the weight GEMMs run in it (fp8: FP8 tensor cores)
  hw::DType kv_dtype = hw::DType::kFp16;      // the KV cache written by prefill and read by decode
  // The kernel family of prefill attention (ServeOptions::attention_backend, else the engine's, else model).
  cost::AttentionBackend attention_backend = cost::AttentionBackend::kModel;
  // How TP all-reduces run (serve/engine_profile.h): the custom kernel's measured latency (`allreduce`)
  // for the messages the engine gives it, NCCL (the collective model plus Vidur's 20 us launch) otherwise;
  // `overhead` is added to every NCCL all-reduce only under TpAllReduce::kNcclFitted (splitwise-2023).
  EngineProfile engine = EngineProfiles().front();
  std::shared_ptr<const AllReduceTable> allreduce;  // required when tp > 1 and the engine is kCustom
  CollectiveOverhead overhead;
  // Linear weights pruned to this sparsity (ServeOptions::weight_sparsity): their GEMMs go
  // through ComputeModel::SparseWeightGemm and the measured dense profile is not used.
  double weight_sparsity = 0.0;
  cost::SparseWeightFormat sparse_format;
  // 4- or 8-bit weights (ServeOptions::weight_quant): every weight GEMM, experts included, goes through
  // ComputeModel::SparseWeightGemm at sparsity 0 in QuantizedWeightFormat() (serve/weight_quant.h).
  WeightQuant weight_quant = WeightQuant::kNone;
  // The layer's memory-bound work (ServeOptions::kernels): fused kernels (norms, rotary embedding,
  // activation, residual adds), or eager PyTorch's kernels, each model::EagerLayerOps forward operator one
  // memory-bound kernel of its bytes (dense models without MLA; others stay fused). Roofline only: with a
  // measured profile, the profile's layer time.
  model::Kernels kernels = model::Kernels::kFused;
};

std::unique_ptr<IterationCostModel> MakeProfiledCostModel(const ProfiledCostInputs& in);
// Fixed time: `per_prefill_token` per prompt token plus `decode_iteration` when
// the batch has any decode; per_layer is zero.
std::unique_ptr<IterationCostModel> MakeConstantCostModel(Duration per_prefill_token,
                                                          Duration decode_iteration);

// A fabric for a TP group inside one node of `gpu`: NVLink when it has NVLink,
// else PCIe.
net::Fabric SingleNodeFabric(const hw::GpuSpec& gpu);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_ITERATION_COST_H_
