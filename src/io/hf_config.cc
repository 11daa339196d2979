#include "dlsim/io/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/io/yaml_writer.h"

namespace dlsim::io {
namespace {

using Json = nlohmann::json;

enum class Family { kLlama, kGpt2, kOpt, kBert, kMixtral, kQwenMoe, kDeepSeek };

struct TypeInfo {
  const char* type;
  Family family;
};

// Llama-shaped decoders: gated MLP, RMSNorm, RoPE. Gemma 2 and 3 tie their embeddings by default and give
// head_dim; their sliding windows (and Mistral v0.1's, Phi-3's) are read by ReadSlidingWindow; Phi-3 keeps
// its fused qkv and gate_up projections, the same matrices.
constexpr TypeInfo kTypes[] = {
    {"bert", Family::kBert},         {"gpt2", Family::kGpt2},         {"llama", Family::kLlama},
    {"mistral", Family::kLlama},     {"opt", Family::kOpt},           {"qwen2", Family::kLlama},
    {"qwen3", Family::kLlama},       {"phi3", Family::kLlama},        {"gemma", Family::kLlama},
    {"gemma2", Family::kLlama},      {"gemma3_text", Family::kLlama}, {"mixtral", Family::kMixtral},
    {"qwen3_moe", Family::kQwenMoe}, {"qwen2_moe", Family::kQwenMoe}, {"deepseek_v3", Family::kDeepSeek}};
constexpr const char* kMoeTypes[] = {"deepseek_v2"};
// The scenario's `layers` range (docs/scenario-format.md), so a config and a scenario both say 1..10000. A
// function, not a namespace-scope constant: limits::kLayers is dynamically initialised in another file, and a
// copy taken during static initialisation read 0 in the clang build (every config's layers "in 1..0").
int MaxLayers() { return static_cast<int>(limits::kLayers.max); }

// Reads the keys of one config, remembering the first error.
class ConfigReader {
 public:
  ConfigReader(const Json& j, const std::string& file) : j_(j), file_(file) {}
  int Int(const char* key, std::optional<int> fallback = std::nullopt, int max = 1 << 24) {
    if (!j_.contains(key) || j_[key].is_null()) {
      if (!fallback) Fail(fmt::format("lacks '{}' (a positive integer)", key));
      return fallback.value_or(0);
    }
    const Json& v = j_[key];
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > max) {
      Fail(fmt::format("'{}' is {}; expected an integer in 1..{}", key, v.dump(), max));
      return 0;
    }
    return v.get<int>();
  }
  // A count that may be 0 (absent: 0): an integer in 0..max; anything else (a string, null, 2.5, true,
  // a number past max) is an error naming the key, never a truncation or a wrap.
  int Count(const char* key, int max) {
    if (!j_.contains(key)) return 0;
    const Json& v = j_[key];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > max) {
      Fail(fmt::format("'{}' is {}; expected an integer in 0..{}", key, v.dump(), max));
      return 0;
    }
    return v.get<int>();
  }
  bool Bool(const char* key, bool fallback) {
    if (!j_.contains(key) || j_[key].is_null()) return fallback;
    if (!j_[key].is_boolean()) Fail(fmt::format("'{}' is {}; expected true or false", key, j_[key].dump()));
    return j_[key].is_boolean() ? j_[key].get<bool>() : fallback;
  }
  double Fraction(const char* key) {
    if (!j_.contains(key) || !j_[key].is_number()) return 0;
    const double d = j_[key].get<double>();
    if (d < 0 || d >= 1) Fail(fmt::format("'{}' is {}; expected a dropout probability in [0, 1)", key, d));
    return std::clamp(d, 0.0, 0.99);
  }
  void Fail(const std::string& what) {
    if (!error_) error_ = Error::InvalidArgument(file_ + ": " + what);
  }
  const std::optional<Error>& error() const { return error_; }

 private:
  const Json& j_;
  const std::string& file_;
  std::optional<Error> error_;
};

void ReadLlama(ConfigReader& c, const std::string& type, model::ModelSpec& s) {
  s.layers = c.Int("num_hidden_layers", std::nullopt, MaxLayers());
  s.hidden = c.Int("hidden_size");
  s.heads = c.Int("num_attention_heads", std::nullopt, 4096);
  s.kv_heads = c.Int("num_key_value_heads", s.heads, 4096);
  s.ffn_hidden = c.Int("intermediate_size");
  // Gemma 3's published text configs leave these to Gemma3TextConfig's defaults (transformers
  // configuration_gemma3.py: vocab_size 262_208, max_position_embeddings 131_072).
  const bool gemma3 = type == "gemma3_text";
  s.vocab = c.Int("vocab_size", gemma3 ? std::optional<int>(262208) : std::nullopt);
  s.max_seq_len = c.Int("max_position_embeddings", gemma3 ? 131072 : 0, 1 << 26);
  s.gated_mlp = true;
  s.norm = model::Norm::kRmsNorm;
  s.position_embedding = model::PositionEmbedding::kRope;
  s.tied_embeddings = c.Bool("tie_word_embeddings", type.rfind("gemma", 0) == 0);  // Gemma's default: tied
  s.attention_bias = type == "qwen2" || type == "qwen2_moe" || c.Bool("attention_bias", false);
  s.dropout = c.Fraction("attention_dropout");
}

// Qwen2-MoE (Qwen1.5-MoE, Qwen2-57B-A14B): one always-on shared expert of shared_expert_intermediate_size,
// priced as that many routed-expert widths (4 x 1408 = 5632 in Qwen1.5-MoE-A2.7B); its sigmoid gate (hidden
// weights per layer, 0.0003% of the model) is left out.
void ReadQwen2SharedExpert(ConfigReader& c, const Json& j, model::MoeSpec& e) {
  if (!j.contains("shared_expert_intermediate_size") || j["shared_expert_intermediate_size"].is_null())
    return;
  const int shared = c.Int("shared_expert_intermediate_size");
  if (e.expert_ffn_hidden > 0 && shared % e.expert_ffn_hidden != 0)
    c.Fail(
        fmt::format("'shared_expert_intermediate_size' {} is not a multiple of 'moe_intermediate_size' {}: "
                    "dlsim prices the shared expert as whole expert widths",
                    shared, e.expert_ffn_hidden));
  else if (e.expert_ffn_hidden > 0)
    e.shared_experts = shared / e.expert_ffn_hidden;
}

// Mixtral / Qwen2-MoE / Qwen3-MoE / DeepSeek-V3: a Llama-style decoder whose MLPs are experts.
void ReadMoe(ConfigReader& c, const Json& j, Family f, model::ModelSpec& s) {
  ReadLlama(c, j["model_type"].get<std::string>(), s);
  model::MoeSpec& e = s.moe;
  e.experts = c.Int(f == Family::kMixtral   ? "num_local_experts"
                    : f == Family::kQwenMoe ? "num_experts"
                                            : "n_routed_experts");
  e.top_k = c.Int("num_experts_per_tok");
  e.expert_ffn_hidden = f == Family::kMixtral ? s.ffn_hidden : c.Int("moe_intermediate_size");
  if (f == Family::kQwenMoe &&
      (c.Int("decoder_sparse_step", 1) != 1 ||
       (j.contains("mlp_only_layers") && j["mlp_only_layers"].is_array() && !j["mlp_only_layers"].empty())))
    c.Fail(
        "'decoder_sparse_step' other than 1 or a non-empty 'mlp_only_layers' (dense layers between MoE "
        "layers) is not modelled; dlsim's MoE layers are every layer from first_dense_layers on");
  if (j["model_type"] == "qwen2_moe") ReadQwen2SharedExpert(c, j, e);
  if (f != Family::kDeepSeek) return;
  if (c.Int("moe_layer_freq", 1) != 1) c.Fail("'moe_layer_freq' other than 1 is not modelled");
  e.shared_experts =
      j.contains("n_shared_experts") && j["n_shared_experts"].is_null() ? 0 : c.Int("n_shared_experts", 0);
  e.first_dense_layers = c.Count("first_k_dense_replace", MaxLayers());
  s.kv_heads = s.heads;  // MLA: every head has its own key and value (from the shared latent)
  model::MlaSpec& a = s.mla;
  a.q_lora_rank = j.contains("q_lora_rank") && j["q_lora_rank"].is_null() ? 0 : c.Int("q_lora_rank", 0);
  a.kv_lora_rank = c.Int("kv_lora_rank");
  a.qk_nope_head_dim = c.Int("qk_nope_head_dim");
  a.qk_rope_head_dim = c.Int("qk_rope_head_dim");
  a.v_head_dim = c.Int("v_head_dim");
}

void ReadGpt2(ConfigReader& c, model::ModelSpec& s) {
  s.layers = c.Int("n_layer", std::nullopt, MaxLayers());
  s.hidden = c.Int("n_embd");
  s.heads = c.Int("n_head", std::nullopt, 4096);
  s.kv_heads = s.heads;
  s.ffn_hidden = c.Int("n_inner", 4 * s.hidden);
  s.vocab = c.Int("vocab_size");
  s.max_seq_len = c.Int("n_positions", 1024, 1 << 26);
  s.position_embedding = model::PositionEmbedding::kLearned;
  s.linear_bias = true;
  s.tied_embeddings = c.Bool("tie_word_embeddings", true);
  s.dropout = c.Fraction("resid_pdrop");
}

// OPT and BERT: the same keys but the FFN's and the arch.
void ReadOptOrBert(ConfigReader& c, Family f, model::ModelSpec& s) {
  s.arch = f == Family::kBert ? model::Arch::kEncoder : model::Arch::kDecoder;
  s.layers = c.Int("num_hidden_layers", std::nullopt, MaxLayers());
  s.hidden = c.Int("hidden_size");
  s.heads = c.Int("num_attention_heads", std::nullopt, 4096);
  s.kv_heads = s.heads;
  s.ffn_hidden = c.Int(f == Family::kBert ? "intermediate_size" : "ffn_dim");
  s.vocab = c.Int("vocab_size");
  s.max_seq_len = c.Int("max_position_embeddings", 512, 1 << 26);
  s.position_embedding = model::PositionEmbedding::kLearned;
  s.linear_bias = f == Family::kBert || c.Bool("enable_bias", true);
  s.tied_embeddings = c.Bool("tie_word_embeddings", true);
  s.dropout = c.Fraction(f == Family::kBert ? "hidden_dropout_prob" : "dropout");
}

Result<Family> FamilyOf(const Json& j, const std::string& file) {
  if (!j.contains("model_type") || !j["model_type"].is_string())
    return Error::InvalidArgument(
        file + ": lacks 'model_type' (a string); supported: " + Join(SupportedHfModelTypes(), ", "));
  const std::string type = j["model_type"].get<std::string>();
  for (const TypeInfo& t : kTypes)
    if (type == t.type) return t.family;
  for (const char* moe : kMoeTypes)
    if (type == moe)
      return Error::InvalidArgument(file + ": model_type '" + type +
                                    "' is a mixture of experts dlsim does not read (supported MoE types: "
                                    "mixtral, qwen2_moe, qwen3_moe, deepseek_v3)");
  return Error::InvalidArgument(file + ": unknown model_type '" + type +
                                "'; supported: " + Join(SupportedHfModelTypes(), ", "));
}

// The period N of a `layer_types` list whose every Nth entry is "full_attention" and the rest
// "sliding_attention" (0: all sliding, 1: all full); -1 for any other list.
int PatternOfLayerTypes(const Json& types) {
  if (!types.is_array() || types.empty()) return -1;
  int first_full = -1;
  for (size_t i = 0; i < types.size(); ++i)
    if (types[i] == "full_attention") {
      first_full = static_cast<int>(i);
      break;
    }
  const int n = first_full + 1;  // 0 when no layer is full
  for (size_t i = 0; i < types.size(); ++i) {
    const bool full = n > 0 && (static_cast<int>(i) + 1) % n == 0;
    if (types[i] != (full ? "full_attention" : "sliding_attention")) return -1;
  }
  return n;
}

// A decoder's sliding window: `sliding_window` (null or absent: none; Qwen2/3 only when use_sliding_window),
// windowed in every layer unless Gemma 2 (every other layer, transformers' modeling_gemma2), Gemma 3 (five of
// six unless its config says), or `sliding_window_pattern` / `layer_types` say which layers are global.
void ReadSlidingWindow(ConfigReader& c, const Json& j, const std::string& type, model::ModelSpec& s) {
  if (!j.contains("sliding_window") || j["sliding_window"].is_null()) return;
  if (type.rfind("qwen", 0) == 0) {
    if (!c.Bool("use_sliding_window", false)) return;
    c.Fail(
        "'use_sliding_window' is true: Qwen windows the layers from max_window_layers on, a split dlsim "
        "does not express (it expresses every layer, or every Nth layer global)");
    return;
  }
  s.sliding_window = c.Int("sliding_window", 0, 1 << 24);
  if (type == "gemma2") s.sliding_window_pattern = 2;
  if (type == "gemma3_text") s.sliding_window_pattern = 6;  // Gemma3TextConfig's default
  if (j.contains("sliding_window_pattern") && !j["sliding_window_pattern"].is_null())
    s.sliding_window_pattern = c.Int("sliding_window_pattern", 0, 10000);
  if (j.contains("layer_types") && !j["layer_types"].is_null()) {
    const int n = PatternOfLayerTypes(j["layer_types"]);
    if (n < 0)
      c.Fail(
          "'layer_types' is not 'sliding_attention' with every Nth layer 'full_attention', the patterns "
          "dlsim "
          "expresses");
    else
      s.sliding_window_pattern = n;
  }
  if (s.sliding_window_pattern == 1) s.sliding_window = s.sliding_window_pattern = 0;  // every layer global
}

}  // namespace

std::vector<std::string> SupportedHfModelTypes() {
  std::vector<std::string> out;
  for (const TypeInfo& t : kTypes) out.emplace_back(t.type);
  return out;
}

Result<model::ModelSpec> ParseHfConfig(std::string_view text, const std::string& file,
                                       const std::string& name) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    return Error::InvalidArgument(file + ":" + LineColumn(text, e.byte > 0 ? e.byte - 1 : 0) +
                                  ": not valid JSON (" + e.what() + ")");
  } catch (const Json::exception& e) {  // e.g. out_of_range: a number such as 1e400 overflows a double
    return Error::InvalidArgument(file + ": not a usable JSON document (" + e.what() + ")");
  }
  if (!j.is_object()) return Error::InvalidArgument(file + ": expected a JSON object (a config.json)");
  DLSIM_ASSIGN_OR_RETURN(const Family family, FamilyOf(j, file));
  model::ModelSpec s;
  s.name = name;
  s.source = "HF config.json: " + file;
  ConfigReader c(j, file);
  if (family == Family::kLlama) ReadLlama(c, j["model_type"].get<std::string>(), s);
  if (family == Family::kGpt2) ReadGpt2(c, s);
  if (family == Family::kOpt || family == Family::kBert) ReadOptOrBert(c, family, s);
  if (family == Family::kMixtral || family == Family::kQwenMoe || family == Family::kDeepSeek)
    ReadMoe(c, j, family, s);
  // An explicit head width (Qwen3: 128 with hidden 2048 and 32 heads); MLA sets its own.
  if (j.contains("head_dim") && !s.mla.enabled()) {
    const int d = c.Int("head_dim", 0, 1 << 16);
    if (s.heads > 0 && int64_t{d} * s.heads != s.hidden) s.explicit_head_dim = d;
  }
  if (family == Family::kLlama || family == Family::kMixtral || family == Family::kQwenMoe)
    ReadSlidingWindow(c, j, j["model_type"].get<std::string>(), s);
  if (c.error()) return *c.error();
  if (const auto issues = s.ShapeIssues(); !issues.empty())
    return Error::InvalidArgument(file + ": " + issues.front().message);
  return s;
}

Result<model::ModelSpec> LoadHfConfig(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  const std::filesystem::path p(path);
  std::string name = p.parent_path().filename().string();
  if (name.empty() || name == "." || p.stem() != "config") name = p.stem().string();
  return ParseHfConfig(text, path, name);
}

bool ReadHfConfigKey(const MapReader& m, model::ModelSpec& spec) {
  std::optional<std::string> file = m.Find<std::string>("hf_config");
  if (!file) return false;
  if (m.Has("name")) {
    m.AddError("hf_config", "give one of 'name' (a catalog model) and 'hf_config' (a config.json)");
    return false;
  }
  const std::string folder = std::filesystem::path(m.document().file_name()).parent_path().string();
  auto loaded = LoadHfConfig(ResolvePath(folder, *file));
  if (!loaded.ok()) {
    m.AddError("hf_config", loaded.error().message);
    return false;
  }
  spec = std::move(loaded).value();
  return true;
}

std::string FormatModelCatalogEntry(const model::ModelSpec& s) {
  std::string out =
      fmt::format("models:\n  - name: {}\n    source: {}\n", YamlQuoted(s.name), YamlQuoted(s.source));
  out += fmt::format("    arch: {}\n    layers: {}\n    hidden: {}\n    heads: {}\n    kv_heads: {}\n",
                     ArchName(s.arch), s.layers, s.hidden, s.heads, s.kv_heads);
  out += fmt::format("    ffn_hidden: {}\n    vocab: {}\n    gated_mlp: {}\n    tied_embeddings: {}\n",
                     s.ffn_hidden, s.vocab, s.gated_mlp, s.tied_embeddings);
  out += fmt::format(
      "    attention_bias: {}\n    linear_bias: {}\n    norm: {}\n    position_embedding: {}\n",
      s.attention_bias, s.linear_bias, NormName(s.norm), PositionEmbeddingName(s.position_embedding));
  out += fmt::format("    dropout: {}\n    max_seq_len: {}\n", s.dropout, s.max_seq_len);
  out += FormatMoeAndMlaKeys(s, "    ");
  return out;
}

}  // namespace dlsim::io
