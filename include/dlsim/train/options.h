// Options of one training-step simulation: plain structs with defaults, validated at the
// edge (io/train_scenario.h) and then used to build the simulation. Units are in the names.
#ifndef DLSIM_TRAIN_OPTIONS_H_
#define DLSIM_TRAIN_OPTIONS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/cost/compute_calibration.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/data/data_options.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/model/dit.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/train/attention_sparsity.h"

namespace dlsim::train {

enum class PipelineScheduleKind { kGpipe, kOneFOneB, kInterleaved };
enum class Recompute { kNone, kSelective, kFull };
// How a causal context-parallel group exchanges K/V (Transformer Engine's cp_comm_type names):
//   kP2p: a ring of cp - 1 send/recv steps, each hidden behind the attention of the previous block
//     (TE's default, Megatron-LM's ring attention);
//   kAllGather: the group all-gathers K/V before attention and reduce-scatters dK/dV after it, on
//     the compute stream, so nothing hides (Llama 3's CP; WLB-LLM's per-document CP; TE's
//     "all_gather", which "is not async, and cannot be overlapped").
enum class CpComm { kP2p, kAllGather };
inline constexpr std::pair<std::string_view, CpComm> kCpCommNames[] = {{"p2p", CpComm::kP2p},
                                                                       {"all_gather", CpComm::kAllGather}};
// Which code runs a causal context-parallel attention (parallel.cp_impl; train/cp_merge.h):
//   kFused: the ring's per-step output correction and gradient accumulation are fused into the attention
//     kernels or cost nothing apart (Transformer Engine, Megatron-LM);
//   kPytorch: PyTorch's experimental context_parallel of late 2024 (torch.distributed.tensor.experimental,
//     the CP of torchtitan's December 2024 benchmarks): every ring step copies K/V into one buffer
//     (torch.cat) and merges its output into an fp32 copy in separate elementwise kernels, and the backward
//     accumulates dQ/dK/dV in fp32 the same way; that memory traffic is priced (CpMergeBytesPerToken).
enum class CpImpl { kFused, kPytorch };
inline constexpr std::pair<std::string_view, CpImpl> kCpImplNames[] = {{"fused", CpImpl::kFused},
                                                                       {"pytorch", CpImpl::kPytorch}};
// How tensor-parallel communication overlaps the GEMMs (parallel.tp_comm_overlap):
//   kNone: every collective on the compute stream's path;
//   kUserbuffers: Transformer Engine's userbuffer overlap (ub_tp_comm_overlap): each pass's collectives
//     pipeline with its GEMM chunks, forward and backward (YAML `true` or `userbuffers`);
//   kAsyncTp: PyTorch's micro-pipeline TP of late 2024 (torchtitan's enable_async_tensor_parallel under
//     torch.compile): Inductor fuses all-gather -> matmul and matmul -> reduce-scatter where the forward
//     graph has them (the forward and a full recomputation of it); the backward's reduce-scatters take sums
//     of matmuls and are not fused (pytorch/pytorch#149946), and it hides only part of what it covers
//     (kAsyncTpHiddenShare, below; priced in train/layer_comm.cc).
enum class TpOverlap { kNone, kUserbuffers, kAsyncTp };
inline constexpr std::pair<std::string_view, TpOverlap> kTpOverlapNames[] = {
    {"false", TpOverlap::kNone},
    {"true", TpOverlap::kUserbuffers},
    {"userbuffers", TpOverlap::kUserbuffers},
    {"async-tp", TpOverlap::kAsyncTp}};
// The share of the forward's tensor-parallel communication PyTorch's AsyncTP hides (TpOverlap::kAsyncTp):
// the forward-pass speedups its authors measured on Llama 3 70B (bf16, TP 8, full recomputation, local
// batch 4 / 8 / 12: +20.31% / +20.52% / +19.16%; discuss.pytorch.org/t/209487, Figure 9) against dlsim's
// forward of the same runs without overlap: data/calibration/async_tp.csv, scripts/derive-async-tp.py
// (tests/train/step_model_test.cc holds this value to the file).
inline constexpr double kAsyncTpHiddenShare = 0.665;
// How ZeRO-3 lays out its sharded parameters and gradients around the collectives (parallel.sharding; acts
// with zero: 3):
//   kFlat: the collectives run on flat buffers that the parameters and gradients view (FSDP1's
//     FlatParameter, DeepSpeed, Megatron-Core's distributed optimizer): no copies around them;
//   kFsdp2: PyTorch FSDP2 (fully_shard, per-parameter sharding; torch/distributed/_composable/fsdp/
//     _fsdp_collectives.py): before each all-gather the shard is cast to the parameter dtype and copied into
//     the all-gather input (foreach_all_gather, on a copy-in stream); after it, the gathered weights are
//     copied out into the parameters on the compute stream (foreach_all_gather_copy_out,
//     torch.split_with_sizes_copy: every gathered byte read and written); before each reduce-scatter the
//     unsharded gradients are copied into one buffer of the reduce dtype on the reduce-scatter stream
//     (foreach_reduce_scatter_copy_in, torch.cat). Priced as memory-bound copies (train/step_model.cc).
enum class Sharding { kFlat, kFsdp2 };
inline constexpr std::pair<std::string_view, Sharding> kShardingNames[] = {{"flat", Sharding::kFlat},
                                                                           {"fsdp2", Sharding::kFsdp2}};
// How much slower compute kernels run while a collective of the data-parallel streams (gradient reductions,
// ZeRO-3 parameter gathers) runs beside them: NCCL's kernels take SMs and memory bandwidth from them. The
// average computational slowdown Lee et al. measured when overlapping compute with communication in GPT and
// LLaMA training on 4 A100, H100, MI250 and MI210 ("Characterizing Compute-Communication Overlap in
// GPU-Accelerated Distributed Deep Learning: Performance and Power Implications", arXiv 2507.03114,
// abstract: 18.9% on average, up to 40.0%), the default of parallel.overlap_contention
// (data/calibration/overlap_contention.csv records it; train/step_sim.cc prices it).
inline constexpr double kOverlapContention = 0.189;
// How a MoE layer moves tokens to its experts (Megatron-Core's --moe-token-dispatcher-type names):
//   kAllToAll: each token's top_k routed copies go to the ranks of their experts and come back by
//     all-to-all over the ep ranks (with expert-TP, an all-gather and a reduce-scatter over etp);
//   kAllGather: every rank all-gathers all tokens of its tp x ep group (Megatron-Core: "this allgather
//     spans the communication domain of TP*EP"), computes its local experts' copies, and the combine
//     reduce-scatters the outputs back; moves ep x the tokens whatever top_k is;
//   kHybridEp: the flex dispatcher's HybridEP backend (--moe-flex-dispatcher-backend hybridep): the
//   all-to-all's
//     volumes, with the permutation into expert order inside its dispatch and combine kernels (Megatron-Core
//     0.16 _HybridEPManager: "permute tokens for communication, perform all-to-all communication, and permute
//     tokens for experts in single step"), so no separate permute / unpermute pass.
enum class MoeDispatcher { kAllToAll, kAllGather, kHybridEp };
inline constexpr std::pair<std::string_view, MoeDispatcher> kMoeDispatcherNames[] = {
    {"alltoall", MoeDispatcher::kAllToAll},
    {"allgather", MoeDispatcher::kAllGather},
    {"hybridep", MoeDispatcher::kHybridEp}};
// How the training state is kept (docs/scenario-format.md, `training.recipe`):
//   kMixed: Megatron / DeepSpeed mixed precision: bf16 (fp16) weights, fp32 master weights and Adam
//     moments (12 B per parameter), gradients in grad_dtype;
//   kBf16: pure bf16, as plain PyTorch with the model cast to bf16 and torch.optim.AdamW: weights,
//     gradients and both moments in bf16 (8 B per parameter);
//   kAutocast: fp32 weights, gradients and moments under torch.autocast(bf16): 16 B per parameter plus
//     the bf16 copies of the weights that autocast casts in every forward and keeps for the backward.
enum class Recipe { kMixed, kBf16, kAutocast };

// The scenario names of the enums above (also the pipeline-schedule registry names).
inline constexpr std::pair<std::string_view, PipelineScheduleKind> kPipelineScheduleNames[] = {
    {"gpipe", PipelineScheduleKind::kGpipe},
    {"1f1b", PipelineScheduleKind::kOneFOneB},
    {"interleaved", PipelineScheduleKind::kInterleaved}};
inline constexpr std::pair<std::string_view, Recompute> kRecomputeNames[] = {
    {"none", Recompute::kNone}, {"selective", Recompute::kSelective}, {"full", Recompute::kFull}};
inline constexpr std::pair<std::string_view, Recipe> kRecipeNames[] = {
    {"mixed", Recipe::kMixed}, {"bf16", Recipe::kBf16}, {"autocast", Recipe::kAutocast}};
// How gradients accumulate over a step's micro-batches (training.grad_accumulation):
//   kFused: no kernels of their own (Megatron's gradient_accumulation_fusion accumulates into the fp32
//     main_grad inside the weight-gradient GEMMs; under the bf16 and autocast recipes autograd's in-place
//     accumulation into .grad is priced with the optimizer step, step_model.cc);
//   kCastAdd: after each micro-batch's backward every parameter's bf16 gradient is cast to fp32 and added
//   into
//     its fp32 accumulator by kernels of their own, DeepSpeed's BF16_Optimizer (update_hp_grads:
//     hp_grad.add_(lp.grad.to(fp32)): the cast reads 2 B and writes 4 B, the add reads 4 + 4 B and writes 4
//     B, kCastAddBytesPerParam), priced with the optimizer step like autocast's casts.
enum class GradAccumulation { kFused, kCastAdd };
inline constexpr std::pair<std::string_view, GradAccumulation> kGradAccumulationNames[] = {
    {"fused", GradAccumulation::kFused}, {"cast-add", GradAccumulation::kCastAdd}};
inline constexpr double kCastAddBytesPerParam = 18.0;
// Which collective reduces the gradients (parallel.grad_reduce): kSharded, a reduce-scatter when ZeRO shards
// the optimizer (zero >= 1) and an all-reduce otherwise; kAllReduce, an all-reduce of the whole gradients
// even when the optimizer is sharded (DeepSpeed's BF16_Optimizer: buffered_allreduce_fallback over its fp32
// gradients, then each rank updates its shard and the parameters are all-gathered).
enum class GradReduce { kSharded, kAllReduce };
inline constexpr std::pair<std::string_view, GradReduce> kGradReduceNames[] = {
    {"sharded", GradReduce::kSharded}, {"all-reduce", GradReduce::kAllReduce}};

// The name of `value` in a names table above ("?" when the table lacks it).
template <typename E, size_t N>
constexpr std::string_view NameIn(const std::pair<std::string_view, E> (&names)[N], E value) {
  for (const auto& [name, v] : names)
    if (v == value) return name;
  return "?";
}
inline std::string_view PipelineScheduleName(PipelineScheduleKind kind) {
  return NameIn(kPipelineScheduleNames, kind);
}
inline std::string_view RecomputeName(Recompute mode) { return NameIn(kRecomputeNames, mode); }
inline std::string_view CpCommName(CpComm c) { return NameIn(kCpCommNames, c); }
inline std::string_view CpImplName(CpImpl c) { return NameIn(kCpImplNames, c); }
inline std::string_view MoeDispatcherName(MoeDispatcher d) { return NameIn(kMoeDispatcherNames, d); }
inline std::string_view TpOverlapName(TpOverlap t) { return NameIn(kTpOverlapNames, t); }
inline std::string_view ShardingName(Sharding s) { return NameIn(kShardingNames, s); }
inline std::string_view RecipeName(Recipe recipe) { return NameIn(kRecipeNames, recipe); }
inline std::string_view GradAccumulationName(GradAccumulation g) { return NameIn(kGradAccumulationNames, g); }
inline std::string_view GradReduceName(GradReduce g) { return NameIn(kGradReduceNames, g); }

struct HardwareOptions {
  std::string gpu = "h100-sxm5-80gb";  // canonical catalog name (aliases resolved by io)
  int gpus = 8;
  std::string node;  // optional catalog node; sets the defaults below
  int gpus_per_node = 8;
  int nics_per_node = 8;
  double nic_gbps = 400;           // per NIC, Gbit/s per direction
  std::string network = "ib-ndr";  // catalog network
  // A locked SM clock in MHz (`nvidia-smi -lgc`); unset: the part's own clocks. hw/sm_clock.h prices it.
  std::optional<double> sm_clock_mhz;
};

struct TrainingOptions {
  int seq_len = 2048;
  int global_batch = 8;  // sequences per step
  int micro_batch = 1;
  hw::DType precision = hw::DType::kBf16;  // bf16 | fp16 | fp8 (fp8 GEMMs, bf16 elsewhere)
  // Core-attention kernel: flash (FlashAttention, default) | unfused (Megatron-LM 2021/2022:
  // QK^T and AV batched GEMMs with a fused softmax, s^2 tensors in memory).
  model::AttentionImpl attention = model::AttentionImpl::kFlash;
  // The fused kernel's family (cost/compute_calibration.h; training.attention_backend): kModel prices it with
  // the architecture's fitted `attention` constants (today's default), kPytorchDefault with what SDPA runs by
  // default on the GPU (cuDNN's kernel on Hopper), the others with their measured family.
  cost::AttentionBackend attention_backend = cost::AttentionBackend::kModel;
  // How the framework runs memory-bound work (training.kernels): fused kernels, or eager PyTorch's one kernel
  // per tensor operation with autocast's casts (model/layer_graph.h, EagerLayerOps).
  model::Kernels kernels = model::Kernels::kFused;
  // Eager kernels: how RMSNorm runs (training.norm_impl; model/layer_graph.h NormImpl): PyTorch's fused
  // kernel, or written in Python with an fp32 upcast (Hugging Face, litgpt, torchtune), which keeps more for
  // the backward.
  model::NormImpl norm_impl = model::NormImpl::kFused;
  // How the head runs (training.head_kernels: final norm, LM head and loss); unset: as `kernels`. Eager
  // where only the transformer blocks are compiled (torchtitan): cross entropy on logits cast to fp32.
  std::optional<model::Kernels> head_kernels;
  // Gradient buffer / reduction type; unset: fp32, except fp16 for fp16 training (Megatron-LM); bf16
  // under the bf16 recipe, fp32 under autocast.
  std::optional<hw::DType> grad_dtype;
  Recipe recipe = Recipe::kMixed;
  GradAccumulation grad_accumulation = GradAccumulation::kFused;  // over the micro-batches (above)
  std::string stack;  // the training.stack profile the scenario named ("": none)
  // The stack's measured host time per layer (stacks.yaml `framework.layer_host_us`): replaces the shipped
  // calibration's, not a user's `--calibration` (train/context_builder.cc).
  std::optional<double> stack_layer_host_us;
  // The stack's measured kernel rates per GPU architecture (stacks.yaml `calibration:`): laid over the
  // kernel-level calibration before the training calibration, so the shipped file's constants for the same
  // key and a user's `--calibration` win (train/context_builder.cc).
  std::vector<cost::ArchTrainingCalibration> stack_calibration;
  // A diffusion transformer's clip (training.video); seq_len is then its latent tokens (model/dit.h).
  std::optional<model::VideoClip> video;
};

// Whether a behaviour holds: no, yes, or only when the layout pipelines (pp > 1).
enum class Pipelined { kNo, kYes, kWhenPipelined };
// parallel.reshard_after_forward's values (keep_gathered is their negation) and defer_grad_reduce's.
inline constexpr std::pair<std::string_view, Pipelined> kReshardNames[] = {
    {"true", Pipelined::kNo}, {"false", Pipelined::kYes}, {"unless-pipelined", Pipelined::kWhenPipelined}};
inline constexpr std::pair<std::string_view, Pipelined> kDeferNames[] = {
    {"false", Pipelined::kNo}, {"true", Pipelined::kYes}, {"when-pipelined", Pipelined::kWhenPipelined}};
inline std::string_view ReshardName(Pipelined p) { return NameIn(kReshardNames, p); }
inline std::string_view DeferName(Pipelined p) { return NameIn(kDeferNames, p); }

struct ParallelOptions {
  int tp = 1;
  int pp = 1;
  int cp = 1;
  int dp = 0;  // 0: gpus / (tp * pp * cp)
  bool sequence_parallel = false;
  PipelineScheduleKind pipeline_schedule = PipelineScheduleKind::kOneFOneB;
  int virtual_stages = 1;  // model chunks per pipeline rank (interleaved)
  int zero = 1;            // 0 none, 1 optimizer, 2 + gradients, 3 + parameters
  Recompute recompute = Recompute::kNone;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  // FSDP behaviours, each no, yes, or only when the layout pipelines (pp > 1), as FSDP2 runs under PyTorch's
  // pipelining stage (torchtitan). keep_gathered (parallel.reshard_after_forward false; ZeRO-3): the gathered
  // parameters stay until the step's end: one gather per chunk and step, the stage's whole bf16 weights
  // resident. defer_grad_reduce (ZeRO-2/3): gradients accumulate unsharded over the step's micro-batches and
  // are reduce-scattered once after the last (set_requires_gradient_sync(False), which the pipelining stage
  // sets on every backward but the last): the stage's whole gradients resident in grad_dtype. Read them
  // through KeepsGatheredWeights / DefersGradReduce.
  Pipelined keep_gathered = Pipelined::kNo;
  Pipelined defer_grad_reduce = Pipelined::kNo;
  TpOverlap tp_comm_overlap = TpOverlap::kNone;
  GradReduce grad_reduce = GradReduce::kSharded;  // the gradients' collective (above)
  // The pipeline's sends block the sender's compute until they complete (DeepSpeed's pipeline engine: its
  // p2p.send asserts async_op False and calls torch.distributed.send): a stage computes nothing while its
  // activation or gradient is on the wire. false: sends run on their own stream (Megatron's batched isend).
  bool p2p_blocking = false;
  Sharding sharding = Sharding::kFlat;             // ZeRO-3's copies around its collectives (above)
  double overlap_contention = kOverlapContention;  // compute slowdown beside dp-stream collectives (above)
  // Mixture of experts (Megatron-Core layout): the tp*cp*dp GPUs of a pipeline stage hold the experts
  // as etp x ep x edp (expert-tensor-parallel innermost, then expert-parallel, then expert-data-
  // parallel). ep: ranks the experts are spread over (experts / ep each); etp: ranks each expert's
  // MLP is split over, 0 meaning tp (Megatron-Core's default). Dense models need ep 1.
  int ep = 1;
  int etp = 0;
  // Layers per pipeline stage (pp * virtual_stages entries, in model order); empty means
  // balanced placement (see docs/models.md).
  std::vector<int> layers_per_stage;
  // How the cp ranks split non-causal core attention (train/context_parallel.h, a cp-layout registry
  // name): ring (the default path), ulysses, hybrid (cp_ulysses head groups x ring; 0: automatic) or dsv.
  std::string cp_layout = "ring";
  int cp_ulysses = 0;
  CpComm cp_comm = CpComm::kP2p;                            // causal CP's K/V exchange (above)
  CpImpl cp_impl = CpImpl::kFused;                          // causal CP's ring code (above)
  MoeDispatcher moe_dispatcher = MoeDispatcher::kAllToAll;  // MoE token dispatch (above)
};

// Whether ZeRO-3 keeps its gathered weights for the step (keep_gathered, and zero 3).
inline bool KeepsGatheredWeights(const ParallelOptions& p) {
  return p.zero >= 3 &&
         (p.keep_gathered == Pipelined::kYes || (p.keep_gathered == Pipelined::kWhenPipelined && p.pp > 1));
}
// Whether the gradients stay unsharded until the step's last micro-batch (defer_grad_reduce, and zero 2 or
// 3).
inline bool DefersGradReduce(const ParallelOptions& p) {
  return p.zero >= 2 && (p.defer_grad_reduce == Pipelined::kYes ||
                         (p.defer_grad_reduce == Pipelined::kWhenPipelined && p.pp > 1));
}

// Data-aware MoE routing (issue 15): how many of a micro-batch's routed tokens each expert receives.
// The skew is a registry policy (train/expert_routing.h): "uniform" (every expert exactly its share),
// "zipf" (expert popularity ~ 1 / rank^zipf_s, ranks shuffled per layer by the seed), "histogram"
// (tokens per expert as measured, one weight per expert). Per micro-batch and layer the shard counts
// are drawn (multinomial) from those shares; the slowest expert shard sets the layer's time.
struct RoutingOptions {
  std::string skew = "uniform";
  double zipf_s = 1.0;
  std::vector<double> histogram;  // weights per expert (histogram skew), experts entries
  std::string histogram_file;     // where they came from (for the report)
};

struct TrainOptions {
  model::ModelSpec model;  // resolved: catalog entry with overrides applied
  HardwareOptions hardware;
  TrainingOptions training;
  ParallelOptions parallel;
  // Data-aware simulation (issue 4): real micro-batch contents over several steps. Unset:
  // every micro-batch holds micro_batch full sequences of seq_len tokens.
  std::optional<data::DataOptions> data;
  // Data-aware MoE routing; unset: the balanced router (every expert exactly its share), priced once.
  std::optional<RoutingOptions> routing;
  // Dynamic attention sparsity of a DiT (DSV; train/attention_sparsity.h); unset: dense attention.
  std::optional<SparsityOptions> sparsity;
  uint64_t seed = 1;
  std::string compute_model = "roofline";  // cost.model: a compute-model registry name
};

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_OPTIONS_H_
