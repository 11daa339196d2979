// A NeMo 1.x recipe YAML (NeMo-Framework-Launcher conf/training/..., NeMo's megatron_gpt_config.yaml) ->
// io::LaunchConfig. The `model:` and `trainer:` keys dlsim shares are read (every other key is the recipe's
// own and is left alone); a null value, or an OmegaConf interpolation ("${.encoder_seq_length}"), counts as
// not given. Defaults are megatron_gpt_config.yaml's.
#include <filesystem>
#include <string>

#include "dlsim/io/launch_config.h"
#include "dlsim/io/limits.h"

namespace dlsim::io {
namespace {

// The key has a value of its own (not null, not an interpolation of another key).
bool Given(const MapReader& m, std::string_view key) {
  if (!m.HasValue(key)) return false;
  const std::optional<std::string> s = m.Find<std::string>(key);
  return !(s && s->rfind("${", 0) == 0);
}

std::optional<int> IntOf(const MapReader& m, std::string_view key, const Range& range) {
  return Given(m, key) ? m.Find<int>(key, range) : std::nullopt;
}

std::string TextOf(const MapReader& m, std::string_view key, std::string fallback) {
  return Given(m, key) ? m.Find<std::string>(key).value_or(fallback) : fallback;
}

bool FlagOf(const MapReader& m, std::string_view key, bool fallback) {
  return Given(m, key) ? m.Find<bool>(key).value_or(fallback) : fallback;
}

void ReadShape(const MapReader& m, model::ModelSpec& s) {
  s.layers = m.Require<int>("num_layers", limits::kLayers).value_or(0);
  s.hidden = m.Require<int>("hidden_size", limits::kHidden).value_or(0);
  s.heads = m.Require<int>("num_attention_heads", limits::kHeads).value_or(0);
  s.kv_heads = IntOf(m, "num_query_groups", limits::kHeads).value_or(s.heads);
  s.ffn_hidden = IntOf(m, "ffn_hidden_size", limits::kFfnHidden).value_or(4 * s.hidden);
  if (std::optional<int> kv = IntOf(m, "kv_channels", limits::kHidden); kv && *kv * s.heads != s.hidden)
    s.explicit_head_dim = *kv;
  const std::string act = TextOf(m, "activation", "gelu");
  s.gated_mlp = act.find("glu") != std::string::npos;  // swiglu, fast-swiglu, geglu, reglu
  s.norm =
      TextOf(m, "normalization", "layernorm") == "rmsnorm" ? model::Norm::kRmsNorm : model::Norm::kLayerNorm;
  const std::string pos = TextOf(m, "position_embedding_type", "learned_absolute");
  s.position_embedding = pos == "rope"               ? model::PositionEmbedding::kRope
                         : pos == "learned_absolute" ? model::PositionEmbedding::kLearned
                                                     : model::PositionEmbedding::kNone;
  s.tied_embeddings = FlagOf(m, "share_embeddings_and_output_weights", true);
  s.linear_bias = FlagOf(m, "bias", true);
  s.attention_bias = s.linear_bias || FlagOf(m, "qkv_bias", false);
  s.dropout =
      Given(m, "hidden_dropout") ? m.Find<double>("hidden_dropout", limits::kDropout).value_or(0.1) : 0.1;
  if (std::optional<int> experts = IntOf(m, "num_moe_experts", limits::kExperts); experts && *experts > 0) {
    s.moe.experts = *experts;
    s.moe.top_k = IntOf(m, "moe_router_topk", limits::kTopK).value_or(2);
    s.moe.expert_ffn_hidden = s.ffn_hidden;
  }
}

std::optional<train::Recompute> RecomputeOf(const MapReader& m) {
  const std::string g = TextOf(m, "activations_checkpoint_granularity", "");
  if (g == "full") return train::Recompute::kFull;
  if (g == "selective") return train::Recompute::kSelective;
  if (!g.empty())
    m.AddError("activations_checkpoint_granularity", "expected selective, full or null, found '" + g + "'");
  return train::Recompute::kNone;
}

// trainer.precision: bf16, bf16-mixed, 16, 16-mixed, 32; model.fp8 turns Transformer Engine's FP8 on.
hw::DType PrecisionOf(const MapReader& trainer, const MapReader& m) {
  if (FlagOf(m, "fp8", false)) return hw::DType::kFp8;
  const std::string p = TextOf(trainer, "precision", "32");
  if (p.rfind("bf16", 0) == 0) return hw::DType::kBf16;
  return p.rfind("16", 0) == 0 ? hw::DType::kFp16 : hw::DType::kFp32;
}

void ReadLayout(const MapReader& m, const MapReader& trainer, LaunchConfig& c) {
  c.tp = IntOf(m, "tensor_model_parallel_size", limits::kDegree).value_or(1);
  c.pp = IntOf(m, "pipeline_model_parallel_size", limits::kDegree).value_or(1);
  c.cp = IntOf(m, "context_parallel_size", limits::kDegree).value_or(1);
  c.ep = IntOf(m, "expert_model_parallel_size", limits::kDegree).value_or(1);
  c.virtual_stages = IntOf(m, "virtual_pipeline_model_parallel_size", limits::kVirtualStages).value_or(1);
  c.pipeline_schedule = *c.virtual_stages > 1 ? train::PipelineScheduleKind::kInterleaved
                                              : train::PipelineScheduleKind::kOneFOneB;
  c.sequence_parallel = FlagOf(m, "sequence_parallel", false);
  c.recompute = RecomputeOf(m);
  c.seq_len = IntOf(m, "encoder_seq_length", limits::kSeqLen);
  c.micro_batch = IntOf(m, "micro_batch_size", limits::kMicroBatch);
  c.global_batch = IntOf(m, "global_batch_size", limits::kGlobalBatch);
  const std::string optim = TextOf(m.Section("optim"), "name", "fused_adam");
  c.zero = optim.find("distributed") != std::string::npos
               ? 1
               : 0;  // distributed_fused_adam, mcore_distributed_optim
  c.precision = PrecisionOf(trainer, m);
  const std::optional<int> nodes = IntOf(trainer, "num_nodes", limits::kGpus);
  const std::optional<int> devices = IntOf(trainer, "devices", limits::kGpus);
  if (nodes && devices && static_cast<int64_t>(*nodes) * *devices <= (1 << 20)) c.gpus = *nodes * *devices;
}

}  // namespace

Result<LaunchConfig> ParseNemoConfig(std::string_view text, const std::string& file_name) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, file_name));
  const MapReader root = doc.Root();
  const MapReader m = root.Section("model");
  const MapReader trainer = root.Section("trainer");
  if (!m.present())
    return Error::Parse(file_name + ": no 'model:' section (a NeMo recipe has model: and trainer:)");
  LaunchConfig c = NewLaunch("nemo_config", "nemo-24.07", file_name, "NeMo recipe");
  ReadShape(m, c.model);
  ReadLayout(m, trainer, c);
  c.model.max_seq_len =
      IntOf(m, "max_position_embeddings", limits::kMaxSeqLen).value_or(c.seq_len.value_or(0));
  DLSIM_RETURN_IF_ERROR(doc.status());
  return c;
}

}  // namespace dlsim::io
