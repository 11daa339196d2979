#include "dlsim/train/layout_check.h"

#include <fmt/format.h>

#include <numeric>

#include "dlsim/core/strings.h"

namespace dlsim::train {
namespace {

std::string S(int64_t v) { return std::to_string(v); }

using Issues = std::vector<LayoutIssue>;

void Add(Issues& out, std::string key, LayoutRule rule, std::string message) {
  out.push_back({std::move(key), rule, std::move(message)});
}

void CheckWholeNodes(const TrainOptions& o, Issues& out) {
  const int64_t gpus = o.hardware.gpus, per_node = o.hardware.gpus_per_node;
  if (gpus > per_node && gpus % per_node != 0)
    Add(out, "hardware.gpus", LayoutRule::kGpus,
        "gpus " + S(gpus) + " is not a multiple of gpus_per_node " + S(per_node) +
            " (a job larger than one node uses whole nodes)");
  if (gpus > per_node && o.hardware.nics_per_node == 0)
    Add(out, "hardware.nics_per_node", LayoutRule::kGpus,
        "a job on " + S((gpus + per_node - 1) / per_node) +
            " nodes needs network interfaces; nics_per_node is 0");
}

// True when tp*pp*cp(*dp) matches the GPU count.
bool CheckGpus(const TrainOptions& o, Issues& out) {
  const ParallelOptions& p = o.parallel;
  const int64_t gpus = o.hardware.gpus;
  const size_t before = out.size();
  const int64_t product = int64_t{p.tp} * p.pp * p.cp;
  const std::string factors = S(p.tp) + "*" + S(p.pp) + "*" + S(p.cp);
  if (p.dp > 0 && product * p.dp != gpus)
    Add(out, "parallel.dp", LayoutRule::kGpus,
        "tp*pp*cp*dp = " + factors + "*" + S(p.dp) + " = " + S(product * p.dp) +
            " GPUs, but hardware.gpus is " + S(gpus));
  if (p.dp <= 0 && (product <= 0 || gpus % product != 0))
    Add(out, "parallel", LayoutRule::kGpus,
        "tp*pp*cp = " + factors + " = " + S(product) + " does not divide hardware.gpus = " + S(gpus) +
            " (dp = gpus / (tp*pp*cp))");
  return out.size() == before;
}

void CheckHeads(const TrainOptions& o, Issues& out) {
  const int tp = o.parallel.tp;
  const model::ModelSpec& m = o.model;
  if (m.heads % tp != 0)
    Add(out, "parallel.tp", LayoutRule::kHeads,
        "heads " + S(m.heads) + " of model " + m.name + " are not divisible by tp " + S(tp));
  else if (m.kv_heads % tp != 0 && tp % m.kv_heads != 0)
    Add(out, "parallel.tp", LayoutRule::kHeads,
        "tp " + S(tp) + " and the " + S(m.kv_heads) + " KV heads of model " + m.name +
            " do not divide one another");
}

void CheckSequence(const TrainOptions& o, Issues& out) {
  const ParallelOptions& p = o.parallel;
  const int seq = o.training.seq_len;
  if (o.model.arch == model::Arch::kDit) {  // non-causal: cp equal shares, no zigzag
    if (p.cp > 1 && seq % p.cp != 0)
      Add(out, "parallel.cp", LayoutRule::kSequence,
          "training.seq_len " + S(seq) + " (latent tokens) is not divisible by cp = " + S(p.cp));
  } else if (p.cp > 1 && seq % (2 * p.cp) != 0)
    Add(out, "parallel.cp", LayoutRule::kSequence,
        "training.seq_len " + S(seq) + " is not divisible by 2*cp = " + S(2 * p.cp) +
            " (each sequence is split into 2*cp chunks)");
  if (p.sequence_parallel && p.tp > 1 && seq % (p.tp * p.cp) != 0)
    Add(out, "parallel.sequence_parallel", LayoutRule::kSequence,
        "training.seq_len " + S(seq) + " is not divisible by tp*cp = " + S(p.tp * p.cp) +
            " (sequence parallelism splits the sequence over tp)");
}

void CheckBatch(const TrainOptions& o, int dp, Issues& out) {
  const int64_t per_step = int64_t{o.training.micro_batch} * dp;
  if (dp > 0 && (o.training.global_batch <= 0 || o.training.global_batch % per_step != 0)) {
    Add(out, "training.global_batch", LayoutRule::kBatch,
        "global_batch " + S(o.training.global_batch) + " is not divisible by micro_batch * dp = " +
            S(o.training.micro_batch) + " * " + S(dp) + " = " + S(per_step));
    return;
  }
  if (dp > 0 && o.training.global_batch / per_step > kMaxMicroBatches)
    Add(out, "training.global_batch", LayoutRule::kBatch,
        "global_batch / (micro_batch * dp) = " + S(o.training.global_batch / per_step) +
            " micro-batches per step; the schedule holds at most " + S(kMaxMicroBatches) +
            " (raise micro_batch)");
  else if (const int64_t m = dp > 0 ? o.training.global_batch / per_step : 0;
           2 * m * o.parallel.virtual_stages > kMaxPipelineTasks)
    Add(out, "training.global_batch", LayoutRule::kBatch,
        fmt::format(
            "2 x {} micro-batches x {} virtual stages = {} forward and backward tasks per pipeline rank; "
            "the schedule holds at most {} (raise micro_batch or lower virtual_stages)",
            m, o.parallel.virtual_stages, 2 * m * o.parallel.virtual_stages, kMaxPipelineTasks));
  const double tokens = static_cast<double>(o.training.global_batch) * o.training.seq_len;
  if (tokens > kMaxTokensPerStep)
    Add(out, "training.global_batch", LayoutRule::kBatch,
        "seq_len * global_batch = " + FormatNumber(tokens, 4) + " tokens per step; at most " +
            FormatNumber(kMaxTokensPerStep, 4) + " (2^40)");
}

void CheckLayersPerStage(const TrainOptions& o, int64_t stages, Issues& out) {
  const std::vector<int>& lps = o.parallel.layers_per_stage;
  if (static_cast<int>(lps.size()) != stages) {
    Add(out, "parallel.layers_per_stage", LayoutRule::kStages,
        "expected pp*virtual_stages = " + S(stages) + " entries, found " + S(lps.size()));
    return;
  }
  const int64_t sum = std::accumulate(lps.begin(), lps.end(), int64_t{0});
  if (sum != o.model.layers)
    Add(out, "parallel.layers_per_stage", LayoutRule::kStages,
        "entries add up to " + S(sum) + " layers, but model " + o.model.name + " has " + S(o.model.layers));
}

void CheckStages(const TrainOptions& o, int dp, Issues& out) {
  const ParallelOptions& p = o.parallel;
  const bool interleaved = p.pipeline_schedule == PipelineScheduleKind::kInterleaved;
  if (p.virtual_stages > 1 && !interleaved)
    Add(out, "parallel.virtual_stages", LayoutRule::kStages,
        "virtual_stages " + S(p.virtual_stages) + " needs pipeline_schedule: interleaved (found " +
            std::string(PipelineScheduleName(p.pipeline_schedule)) + ")");
  if (interleaved && p.pp < 2)
    Add(out, "parallel.pipeline_schedule", LayoutRule::kStages,
        "interleaved needs pp >= 2, found pp " + S(p.pp));
  const int64_t chunks = interleaved ? p.virtual_stages : 1;
  const int64_t stages = int64_t{p.pp} * chunks;  // may exceed int for absurd inputs
  if (!p.layers_per_stage.empty()) {
    CheckLayersPerStage(o, stages, out);
  } else if (o.model.layers < stages) {
    Add(out, "parallel.pp", LayoutRule::kStages,
        "cannot place " + S(o.model.layers) + " layers on pp*virtual_stages = " + S(stages) + " stages");
  }
  const int64_t per_step = int64_t{o.training.micro_batch} * dp;
  if (interleaved && chunks > 1 && dp > 0 && p.pp > 1 && o.training.global_batch % per_step == 0) {
    const int64_t micro_batches = o.training.global_batch / per_step;
    if (micro_batches % p.pp != 0)
      Add(out, "parallel.pipeline_schedule", LayoutRule::kStages,
          "the interleaved schedule needs micro-batches (" + S(micro_batches) +
              ") divisible by pp = " + S(p.pp));
  }
}

// The expert grid (parallel.h): ep and etp divide the experts, the expert width and the stage's GPUs.
void CheckExperts(const TrainOptions& o, int dp, Issues& out) {
  const ParallelOptions& p = o.parallel;
  const model::ModelSpec& m = o.model;
  if (!m.moe.enabled()) {
    if (p.ep != 1 || p.etp > 1)
      Add(out, p.ep != 1 ? "parallel.ep" : "parallel.etp", LayoutRule::kExperts,
          "expert parallelism (ep " + S(p.ep) + ", etp " + S(p.etp) + ") needs a mixture-of-experts model; " +
              m.name + " is dense (ep 1, etp 0 or 1)");
    return;
  }
  const int etp = ExpertTensorParallelSize(o);
  if (m.moe.experts % p.ep != 0)
    Add(out, "parallel.ep", LayoutRule::kExperts,
        "the " + S(m.moe.experts) + " experts of model " + m.name + " are not divisible by ep " + S(p.ep) +
            " (each expert-parallel rank holds experts / ep whole experts)");
  if (m.moe.expert_ffn_hidden % etp != 0)
    Add(out, "parallel.etp", LayoutRule::kExperts,
        "expert_ffn_hidden " + S(m.moe.expert_ffn_hidden) + " is not divisible by etp " + S(etp) +
            (p.etp == 0 ? " (etp not given: tp)" : ""));
  const int64_t stage = int64_t{p.tp} * p.cp * dp;
  if (dp > 0 && stage % (int64_t{p.ep} * etp) != 0)
    Add(out, "parallel.ep", LayoutRule::kExperts,
        "ep * etp = " + S(p.ep) + " * " + S(etp) + " does not divide tp * cp * dp = " + S(stage) +
            " (the GPUs of a pipeline stage hold etp x ep x edp expert shards)");
  if (p.tp > 1 && !p.sequence_parallel)
    Add(out, "parallel.sequence_parallel", LayoutRule::kExperts,
        "a mixture-of-experts model with tp " + S(p.tp) +
            " needs sequence_parallel: true (Megatron-Core requires it: the token all-to-all moves each TP "
            "rank's own tokens)");
}

// The context-parallel layout (context_parallel.h) and attention sparsity: non-causal attention only,
// full sequences (no data-aware documents), heads the head groups can split; a DiT has no experts and
// trains on full latent sequences.
void CheckContext(const TrainOptions& o, Issues& out) {
  const ParallelOptions& p = o.parallel;
  const model::ModelSpec& m = o.model;
  const bool dit = m.arch == model::Arch::kDit, policy = p.cp_layout != "ring";
  if (dit && o.data)
    Add(out, "data", LayoutRule::kContext,
        "data-aware documents are not modelled for a diffusion transformer: it trains on full latent "
        "sequences of training.seq_len tokens");
  if (dit && m.moe.enabled())
    Add(out, "model.experts", LayoutRule::kContext, "a diffusion transformer with experts is not modelled");
  if ((policy || o.sparsity) && m.arch == model::Arch::kDecoder)
    Add(out, policy ? "parallel.cp_layout" : "sparsity", LayoutRule::kContext,
        "context-parallel layouts other than ring and attention sparsity model non-causal attention "
        "(arch dit or encoder); model " +
            m.name + " is a decoder");
  if ((policy || o.sparsity) && o.data)
    Add(out, policy ? "parallel.cp_layout" : "sparsity", LayoutRule::kContext,
        "a context-parallel layout policy prices full sequences; remove the data section");
  if (o.sparsity && !dit)
    Add(out, "sparsity", LayoutRule::kContext,
        "attention sparsity (DSV) needs a diffusion transformer (arch dit)");
  if (o.sparsity) {
    for (int l : o.sparsity->dense_layers) {
      if (l < 0 || l >= m.layers)
        Add(out, "sparsity.dense_layers", LayoutRule::kContext,
            "layer " + S(l) + " is not a layer of " + m.name + " (0.." + S(m.layers - 1) + ")");
    }
  }
  const int heads = m.heads / std::max(1, p.tp);
  if (p.cp_layout == "ulysses" && p.cp > 1 && heads % p.cp != 0)
    Add(out, "parallel.cp", LayoutRule::kContext,
        "cp_layout ulysses gives every rank heads / cp whole heads: the " + S(heads) +
            " heads of a tensor-parallel rank are not divisible by cp " + S(p.cp));
  if (p.cp_layout == "hybrid" && p.cp_ulysses > 0 && (p.cp % p.cp_ulysses != 0 || heads % p.cp_ulysses != 0))
    Add(out, "parallel.cp_ulysses", LayoutRule::kContext,
        "cp_ulysses " + S(p.cp_ulysses) + " must divide cp " + S(p.cp) + " and the " + S(heads) +
            " heads of a tensor-parallel rank");
}

}  // namespace

int ExpertTensorParallelSize(const TrainOptions& o) {
  return o.parallel.etp > 0 ? o.parallel.etp : o.parallel.tp;
}

int DataParallelSize(const TrainOptions& o) {
  if (o.parallel.dp > 0) return o.parallel.dp;
  const int64_t product = int64_t{o.parallel.tp} * o.parallel.pp * o.parallel.cp;
  if (product <= 0 || o.hardware.gpus % product != 0) return 0;
  return static_cast<int>(o.hardware.gpus / product);
}

std::vector<LayoutIssue> CheckLayout(const TrainOptions& o) {
  Issues out;
  CheckWholeNodes(o, out);
  const int dp = CheckGpus(o, out) ? DataParallelSize(o) : 0;
  CheckHeads(o, out);
  CheckSequence(o, out);
  CheckBatch(o, dp, out);
  CheckStages(o, dp, out);
  CheckExperts(o, dp, out);
  CheckContext(o, out);
  return out;
}

Status LayoutStatus(const std::vector<LayoutIssue>& issues) {
  if (issues.empty()) return Status::Ok();
  return Error::Infeasible(issues.front().key + ": " + issues.front().message);
}

}  // namespace dlsim::train
