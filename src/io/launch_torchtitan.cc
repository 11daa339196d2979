// A torchtitan training TOML (torchtitan/models/llama3/train_configs/*.toml, and the older
// train_configs/*.toml layout) -> io::LaunchConfig, parsed with toml++ (Debian's libtomlplusplus). [model]
// name and flavor name a published shape: torchtitan's llama flavors are the Llama checkpoints' shapes, so
// they resolve to those catalog entries. The degrees are read from [parallelism] (from March 2025), else from
// [training] and [experimental] (before). torchtitan removed its TOML files in February 2026 (configs became
// Python); files of the versions before read here. Defaults are torchtitan's job_config.py.
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "dlsim/core/strings.h"
#include "dlsim/io/launch_config.h"
#include "dlsim/io/limits.h"

namespace dlsim::io {
namespace {

// torchtitan model name + flavor -> the catalog entry of the same shape (torchtitan/models/llama3/__init__.py
// llama3_configs: 8B dim 4096, 32 layers, 32 heads, 8 KV heads, FFN 14336; 70B 8192/80/64/8/28672; 405B
// 16384/126/128/8/53248; vocab 128256; llama2's 7B/13B/70B likewise).
struct Flavor {
  const char* model;
  const char* flavor;
  const char* catalog;
};
constexpr Flavor kFlavors[] = {
    {"llama3", "8B", "llama3-8b"}, {"llama3", "70B", "llama3-70b"}, {"llama3", "405B", "llama3.1-405b"},
    {"llama2", "7B", "llama2-7b"}, {"llama2", "13B", "llama2-13b"}, {"llama2", "70B", "llama2-70b"},
};

// Reads the TOML's keys with their place in the file for messages; the first error is kept.
class TomlReader {
 public:
  TomlReader(const toml::table& t, std::string file) : t_(t), file_(std::move(file)) {}
  // The first of `paths` present ("parallelism.tensor_parallel_degree", then the older place).
  std::optional<int64_t> Int(std::initializer_list<const char*> paths, const Range& range) {
    for (const char* p : paths) {
      const toml::node_view<const toml::node> n = t_.at_path(p);
      if (!n) continue;
      const std::optional<int64_t> v = n.value<int64_t>();
      if (v && range.Contains(static_cast<double>(*v))) return v;
      Fail(n.node(), p,
           "expected an integer" + std::string(v ? " in range" : "") + ", found " + Shown(n.node()));
      return std::nullopt;
    }
    return std::nullopt;
  }
  std::optional<std::string> Text(std::initializer_list<const char*> paths) {
    for (const char* p : paths) {
      const toml::node_view<const toml::node> n = t_.at_path(p);
      if (!n) continue;
      if (std::optional<std::string> v = n.value<std::string>()) return v;
      Fail(n.node(), p, "expected a string, found " + Shown(n.node()));
      return std::nullopt;
    }
    return std::nullopt;
  }
  bool Contains(const char* path, std::string_view needle) const {
    const toml::array* a = t_.at_path(path).as_array();
    if (!a) return false;
    for (const toml::node& e : *a)
      if (const auto s = e.value<std::string>(); s && s->find(needle) != std::string::npos) return true;
    return false;
  }
  void Fail(const toml::node* n, const std::string& path, const std::string& why) {
    if (!error_.empty()) return;
    const int line = n ? static_cast<int>(n->source().begin.line) : 0;
    error_ = file_ + ":" + std::to_string(line) + ": " + path + ": " + why;
  }
  const std::string& error() const { return error_; }

 private:
  static std::string Shown(const toml::node* n) {
    if (!n) return "nothing";
    if (const auto s = n->value<std::string>()) return "'" + *s + "'";
    if (const auto b = n->value<bool>(); b && n->is_boolean()) return *b ? "true" : "false";
    if (const auto d = n->value<double>()) return FormatNumber(*d, 6);
    return n->is_table() ? "a table" : n->is_array() ? "an array" : "a date or time";
  }
  const toml::table& t_;
  std::string file_;
  std::string error_;
};

void ReadShape(TomlReader& r, const model::ModelCatalog& models, LaunchConfig& c) {
  const std::string name = r.Text({"model.name"}).value_or("llama3");
  const std::string flavor = r.Text({"model.flavor"}).value_or("debugmodel");
  std::vector<std::string> known;
  for (const Flavor& f : kFlavors) {
    known.push_back(std::string(f.model) + " " + f.flavor);
    if (name != f.model || flavor != f.flavor) continue;
    if (auto m = models.Find(f.catalog); m.ok()) c.model = **m;
    c.model.source = "torchtitan " + name + " " + flavor + " (the shape of catalog model " + f.catalog + ")";
    return;
  }
  r.Fail(nullptr, "model.flavor",
         "torchtitan model '" + name + "' flavor '" + flavor +
             "' is not one of the published shapes dlsim knows (" + Join(known, ", ") +
             "); give the shape with model.name or model.hf_config instead");
}

std::optional<train::PipelineScheduleKind> ScheduleOf(TomlReader& r, int* virtual_stages) {
  const std::optional<std::string> s =
      r.Text({"parallelism.pipeline_parallel_schedule", "experimental.pipeline_parallel_schedule"});
  if (!s || *s == "1F1B") return train::PipelineScheduleKind::kOneFOneB;
  if (*s == "GPipe") return train::PipelineScheduleKind::kGpipe;
  if (*s == "Interleaved1F1B") {
    *virtual_stages = 2;  // torchtitan's default: two stages per pipeline rank
    return train::PipelineScheduleKind::kInterleaved;
  }
  r.Fail(nullptr, "parallelism.pipeline_parallel_schedule",
         "'" + *s + "' is not simulated; dlsim has 1F1B, GPipe and Interleaved1F1B");
  return std::nullopt;
}

std::optional<train::Recompute> RecomputeOf(TomlReader& r) {
  const std::string mode = r.Text({"activation_checkpoint.mode"}).value_or("selective");
  if (mode == "none") return train::Recompute::kNone;
  if (mode == "full") return train::Recompute::kFull;
  if (mode == "selective") return train::Recompute::kSelective;
  r.Fail(nullptr, "activation_checkpoint.mode",
         "'" + mode + "' is not simulated; dlsim has none, selective and full");
  return std::nullopt;
}

void ReadLayout(TomlReader& r, LaunchConfig& c) {
  c.tp = r.Int({"parallelism.tensor_parallel_degree", "training.tensor_parallel_degree"}, limits::kDegree);
  c.pp = r.Int({"parallelism.pipeline_parallel_degree", "experimental.pipeline_parallel_degree"},
               limits::kDegree);
  c.cp =
      r.Int({"parallelism.context_parallel_degree", "experimental.context_parallel_degree"}, limits::kDegree);
  c.ep = r.Int({"parallelism.expert_parallel_degree"}, limits::kDegree);
  // data_parallel_shard_degree -1 (the default: every rank left) or > 1 is FSDP: ZeRO-3; 1 is no sharding.
  const std::optional<int64_t> shard =
      r.Int({"parallelism.data_parallel_shard_degree", "training.data_parallel_shard_degree"},
            Range::Between(-1, 1 << 20));
  c.zero = shard && *shard == 1 ? 0 : 3;
  int virtual_stages = 1;
  c.pipeline_schedule = ScheduleOf(r, &virtual_stages);
  c.virtual_stages = virtual_stages;
  c.recompute = RecomputeOf(r);
  c.seq_len = r.Int({"training.seq_len"}, limits::kSeqLen).value_or(2048);
  c.micro_batch =
      r.Int({"training.local_batch_size", "training.batch_size"}, limits::kMicroBatch).value_or(8);
  if (std::optional<int64_t> g = r.Int({"training.global_batch_size"}, Range::Between(-1, 1 << 24));
      g && *g > 0)
    c.global_batch = static_cast<int>(*g);
  const std::string param = r.Text({"training.mixed_precision_param"}).value_or("bfloat16");
  c.precision = param == "float32" ? hw::DType::kFp32 : hw::DType::kBf16;
  if (r.Contains("model.converters", "float8")) c.precision = hw::DType::kFp8;
  c.sequence_parallel =
      c.tp.value_or(1) > 1;  // torchtitan's TP plan shards the norms' sequence (SequenceParallel)
}

}  // namespace

Result<LaunchConfig> ParseTorchtitanConfig(std::string_view text, const std::string& file_name,
                                           const model::ModelCatalog& models) {
  toml::table table;
  try {
    table = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    return Error::Parse(file_name + ":" + std::to_string(e.source().begin.line) + ":" +
                        std::to_string(e.source().begin.column) +
                        ": toml syntax error: " + std::string(e.description()));
  }
  TomlReader r(table, file_name);
  LaunchConfig c = NewLaunch("torchtitan_config", "torchtitan-2024.12", file_name, "torchtitan config");
  ReadShape(r, models, c);
  ReadLayout(r, c);
  c.model.max_seq_len =
      std::max(c.model.max_seq_len, c.seq_len.value_or(0));  // torchtitan sets it from seq_len
  if (!r.error().empty()) return Error::Parse(r.error());
  return c;
}

}  // namespace dlsim::io
