// Megatron-LM launch arguments (megatron/training/arguments.py) -> io::LaunchConfig. The file is a launch
// script or a plain list of arguments: words split as a shell splits them (quotes, backslash-continued lines,
// '#' comments, `NAME=( ... )` arrays), `NAME=value` assignments substituted into later $NAME / ${NAME}
// words. The last occurrence of a flag wins, as argparse has it. Defaults are Megatron's own.
#include <cctype>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dlsim/core/strings.h"
#include "dlsim/io/launch_config.h"
#include "dlsim/io/limits.h"

namespace dlsim::io {
namespace {

struct Word {
  std::string text;
  int line = 0;
};

bool IsName(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// `w` with $NAME, ${NAME} and ${NAME:-default} replaced from `vars`; an unknown name stays as written.
std::string Substitute(const std::string& w, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < w.size();) {
    if (w[i] != '$' || i + 1 == w.size()) {
      out += w[i++];
      continue;
    }
    const bool braced = w[i + 1] == '{';
    size_t start = i + (braced ? 2 : 1), end = start;
    while (end < w.size() && (std::isalnum(static_cast<unsigned char>(w[end])) || w[end] == '_')) ++end;
    std::string name = w.substr(start, end - start), fallback;
    bool has_fallback = false;
    if (braced) {
      const size_t close = w.find('}', end);
      if (close == std::string::npos || name.empty()) return out + w.substr(i);
      if (w.compare(end, 2, ":-") == 0) {
        fallback = w.substr(end + 2, close - end - 2);
        has_fallback = true;
      }
      end = close + 1;
    }
    const auto it = vars.find(name);
    if (it != vars.end())
      out += it->second;
    else
      out += has_fallback ? fallback : w.substr(i, end - i);
    i = end;
  }
  return out;
}

// Splits `text` into words as a shell does: blanks and newlines separate; quotes group; a backslash before
// a newline joins lines; '#' at the start of a word comments out the rest of its line; '(' and ')' separate.
std::vector<Word> ShellWords(std::string_view text) {
  std::vector<Word> words;
  std::string cur;
  bool in_word = false;
  int line = 1, word_line = 1;
  char quote = 0;
  const auto flush = [&] {
    if (in_word) words.push_back({cur, word_line});
    cur.clear();
    in_word = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      ++line;
      continue;
    }
    if (c == '#' && !in_word) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '(' || c == ')') {
      flush();
      continue;
    }
    if (!in_word) word_line = line;
    in_word = true;
    if (c == '"' || c == '\'')
      quote = c;
    else
      cur += c;
  }
  flush();
  return words;
}

struct Flag {
  std::string value;  // "" for a switch
  int line = 0;
};

// The flags of `words` ("--name value", "--name=value", "--switch"), after assignments were substituted.
std::map<std::string, Flag> ReadFlags(const std::vector<Word>& words) {
  std::map<std::string, std::string> vars;
  std::map<std::string, Flag> flags;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string w = Substitute(words[i].text, vars);
    const size_t eq = w.find('=');
    if (w.rfind("--", 0) != 0) {
      if (eq != std::string::npos && IsName(w.substr(0, eq))) vars[w.substr(0, eq)] = w.substr(eq + 1);
      continue;
    }
    Flag f{"", words[i].line};
    std::string name = w.substr(2);
    if (eq != std::string::npos) {
      name = w.substr(2, eq - 2);
      f.value = w.substr(eq + 1);
    } else if (i + 1 < words.size() && words[i + 1].text.rfind("--", 0) != 0) {
      f.value = Substitute(words[++i].text, vars);
    }
    flags[name] = f;
  }
  return flags;
}

// Reads the flags the launch needs; the first error is kept (and later reads return nothing).
class FlagReader {
 public:
  FlagReader(std::map<std::string, Flag> flags, std::string file)
      : flags_(std::move(flags)), file_(std::move(file)) {}
  bool Has(const std::string& name) const { return flags_.count(name) > 0; }
  std::string Text(const std::string& name) const {
    const auto it = flags_.find(name);
    return it == flags_.end() ? "" : it->second.value;
  }
  std::optional<double> Number(const std::string& name, const Range& range, bool integral = false) {
    const auto it = flags_.find(name);
    if (it == flags_.end() || !error_.empty()) return std::nullopt;
    Result<double> v = ParseNumber(it->second.value, range, integral);
    if (v.ok()) return *v;
    std::string why = v.error().message;
    if (it->second.value.find('$') != std::string::npos) why += " (a variable the file does not set)";
    Fail(name, why);
    return std::nullopt;
  }
  std::optional<int> Int(const std::string& name, const Range& range) {
    const std::optional<double> v = Number(name, range, true);
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  }
  int Required(const std::string& name, const Range& range) {
    if (!Has(name) && error_.empty()) error_ = file_ + ": --" + name + " is not given (Megatron requires it)";
    return Int(name, range).value_or(0);
  }
  void Fail(const std::string& name, const std::string& why) {
    if (!error_.empty()) return;
    const auto it = flags_.find(name);
    error_ =
        file_ + ":" + std::to_string(it == flags_.end() ? 0 : it->second.line) + ": --" + name + ": " + why;
  }
  const std::string& error() const { return error_; }

 private:
  std::map<std::string, Flag> flags_;
  std::string file_;
  std::string error_;
};

model::PositionEmbedding PositionOf(const FlagReader& f) {
  const std::string pos = f.Text("position-embedding-type");  // default learned_absolute
  if (pos == "rope" || f.Has("use-rotary-position-embeddings")) return model::PositionEmbedding::kRope;
  return pos == "none" ? model::PositionEmbedding::kNone : model::PositionEmbedding::kLearned;
}

void ReadShape(FlagReader& f, model::ModelSpec& m) {
  m.layers = f.Required("num-layers", limits::kLayers);
  m.hidden = f.Required("hidden-size", limits::kHidden);
  m.heads = f.Required("num-attention-heads", limits::kHeads);
  m.kv_heads =
      f.Has("group-query-attention") ? f.Int("num-query-groups", limits::kHeads).value_or(1) : m.heads;
  if (m.kv_heads > 0 && m.heads % m.kv_heads != 0)  // validate_args asserts the same
    f.Fail("num-query-groups", std::to_string(m.kv_heads) + " groups do not divide " +
                                   std::to_string(m.heads) + " attention heads");
  m.gated_mlp = f.Has("swiglu");
  // validate_args: with --swiglu, int((4 * h * 2 / 3) / 64) * 64; else 4 * h.
  const int ffn_default = m.gated_mlp ? static_cast<int>(4.0 * m.hidden * 2 / 3 / 64) * 64 : 4 * m.hidden;
  m.ffn_hidden = f.Int("ffn-hidden-size", limits::kFfnHidden).value_or(ffn_default);
  if (m.ffn_hidden < 1 && m.hidden > 0)  // Megatron would build a 0-wide MLP
    f.Fail("swiglu", "with --hidden-size " + std::to_string(m.hidden) +
                         " Megatron's default FFN width int(8h/3/64)*64 is 0; give --ffn-hidden-size");
  const std::optional<int> kv_channels = f.Int("kv-channels", limits::kHidden);
  if (!kv_channels && m.heads > 0 && m.hidden % m.heads != 0)  // validate_args asserts the same
    f.Fail("num-attention-heads", std::to_string(m.heads) + " heads do not divide --hidden-size " +
                                      std::to_string(m.hidden) + "; give --kv-channels");
  if (kv_channels && *kv_channels * m.heads != m.hidden) m.explicit_head_dim = *kv_channels;
  m.norm = f.Text("normalization") == "RMSNorm" ? model::Norm::kRmsNorm : model::Norm::kLayerNorm;
  m.position_embedding = PositionOf(f);
  m.tied_embeddings = !f.Has("untie-embeddings-and-output-weights");
  m.linear_bias = !f.Has("disable-bias-linear");
  m.attention_bias = m.linear_bias || f.Has("add-qkv-bias");
  m.dropout = f.Number("hidden-dropout", limits::kDropout).value_or(0.1);  // Megatron's default
}

// Megatron pads the vocabulary to a multiple of make-vocab-size-divisible-by (128) x tp
// (_vocab_size_with_padding), and that is the embedding it trains.
int PaddedVocab(FlagReader& f, int tp) {
  if (std::optional<int> padded = f.Int("padded-vocab-size", limits::kVocab)) return *padded;
  const std::optional<int> vocab = f.Int("vocab-size", limits::kVocab);
  if (!vocab) return 0;
  const int multiple = f.Int("make-vocab-size-divisible-by", Range::Between(1, 1 << 16)).value_or(128) * tp;
  return (*vocab + multiple - 1) / multiple * multiple;
}

void ReadMoe(FlagReader& f, model::ModelSpec& m) {
  const std::optional<int> experts = f.Int("num-experts", limits::kExperts);
  if (!experts || *experts == 0) return;
  m.moe.experts = *experts;
  m.moe.top_k = f.Int("moe-router-topk", limits::kTopK).value_or(2);
  m.moe.expert_ffn_hidden = f.Int("moe-ffn-hidden-size", limits::kFfnHidden).value_or(m.ffn_hidden);
  m.moe.capacity_factor = f.Number("moe-expert-capacity-factor", Range::Positive(1e3)).value_or(0);
  if (std::optional<int> shared = f.Int("moe-shared-expert-intermediate-size", limits::kFfnHidden)) {
    if (*shared % m.moe.expert_ffn_hidden != 0)
      f.Fail("moe-shared-expert-intermediate-size",
             "not a whole number of experts of " + std::to_string(m.moe.expert_ffn_hidden));
    m.moe.shared_experts = *shared / m.moe.expert_ffn_hidden;
  }
  if (f.Has("moe-layer-freq") && f.Text("moe-layer-freq") != "1")
    f.Fail("moe-layer-freq",
           "only every layer a MoE layer (1) is read; give model.first_dense_layers instead");
}

std::optional<train::Recompute> RecomputeOf(const FlagReader& f) {
  const std::string g = f.Text("recompute-granularity");
  if (g == "full") return train::Recompute::kFull;
  if (g == "selective" || f.Has("recompute-activations")) return train::Recompute::kSelective;
  return train::Recompute::kNone;
}

hw::DType PrecisionOf(const FlagReader& f) {
  if (f.Has("fp8-format")) return hw::DType::kFp8;
  if (f.Has("bf16")) return hw::DType::kBf16;
  return f.Has("fp16") ? hw::DType::kFp16 : hw::DType::kFp32;
}

void ReadLayout(FlagReader& f, LaunchConfig& c) {
  c.tp = f.Int("tensor-model-parallel-size", limits::kDegree).value_or(1);
  c.pp = f.Int("pipeline-model-parallel-size", limits::kDegree).value_or(1);
  c.cp = f.Int("context-parallel-size", limits::kDegree).value_or(1);
  c.ep = f.Int("expert-model-parallel-size", limits::kDegree).value_or(1);
  c.sequence_parallel = f.Has("sequence-parallel");
  c.zero = f.Has("use-distributed-optimizer") ? 1 : 0;
  c.recompute = RecomputeOf(f);
  c.precision = PrecisionOf(f);
  c.seq_len = f.Int("seq-length", limits::kSeqLen);
  c.micro_batch = f.Int("micro-batch-size", limits::kMicroBatch);
  c.global_batch = f.Int("global-batch-size", limits::kGlobalBatch);
  int virtual_stages = f.Int("num-virtual-stages-per-pipeline-rank", limits::kVirtualStages).value_or(1);
  if (std::optional<int> per = f.Int("num-layers-per-virtual-pipeline-stage", limits::kLayers)) {
    if (c.model.layers % (*c.pp * *per) != 0)
      f.Fail("num-layers-per-virtual-pipeline-stage", "does not divide the layers of each pipeline stage");
    else
      virtual_stages = c.model.layers / (*c.pp * *per);
  }
  c.virtual_stages = virtual_stages;
  c.pipeline_schedule =
      virtual_stages > 1 ? train::PipelineScheduleKind::kInterleaved : train::PipelineScheduleKind::kOneFOneB;
}

}  // namespace

Result<LaunchConfig> ParseMegatronArgs(std::string_view text, const std::string& file_name) {
  FlagReader f(ReadFlags(ShellWords(text)), file_name);
  LaunchConfig c = NewLaunch("megatron_args", "megatron-core-0.8", file_name, "Megatron-LM arguments");
  ReadShape(f, c.model);
  ReadLayout(f, c);
  c.model.vocab = PaddedVocab(f, c.tp.value_or(1));
  c.model.max_seq_len = f.Int("max-position-embeddings", limits::kMaxSeqLen).value_or(c.seq_len.value_or(0));
  ReadMoe(f, c.model);
  if (!f.error().empty()) return Error::Parse(f.error());
  return c;
}

}  // namespace dlsim::io
