// The launch-configuration keys of a scenario's model section, and how a launch's keys are laid under the
// scenario's (io/launch_config.h).
#include "dlsim/io/launch_config.h"

#include <filesystem>
#include <string>
#include <vector>

#include "dlsim/io/paths.h"

namespace dlsim::io {
namespace {

Result<LaunchConfig> ParseLaunch(const std::string& key, const std::string& text, const std::string& path,
                                 const model::ModelCatalog& models) {
  if (key == "megatron_args") return ParseMegatronArgs(text, path);
  if (key == "nemo_config") return ParseNemoConfig(text, path);
  return ParseTorchtitanConfig(text, path, models);
}

// The one launch key given, or "" (none, or an error recorded: two of them, or one next to a catalog name
// or a config.json).
std::string LaunchKeyOf(const MapReader& m) {
  std::vector<std::string> given;
  for (std::string_view k : kLaunchKeys)
    if (m.Has(k)) given.emplace_back(k);
  if (given.empty()) return "";
  if (given.size() > 1) {
    m.AddError(given[1], "give one launch configuration ('" + given[0] + "' is given too)");
    return "";
  }
  for (const char* other : {"name", "hf_config"}) {
    if (m.Has(other)) {
      m.AddError(given[0], "give one of '" + std::string(other) + "' and '" + given[0] +
                               "' (the launch configuration names the model's shape)");
      return "";
    }
  }
  return given[0];
}

}  // namespace

LaunchConfig NewLaunch(std::string format, std::string stack, const std::string& file_name,
                       const std::string& what) {
  LaunchConfig c;
  c.format = std::move(format);
  c.stack = std::move(stack);
  c.model.name = std::filesystem::path(file_name).stem().string();
  c.model.source = what + ": " + file_name;
  return c;
}

std::optional<LaunchConfig> ReadLaunchKey(const MapReader& m, const model::ModelCatalog& models) {
  const std::string key = LaunchKeyOf(m);
  if (key.empty()) return std::nullopt;
  const std::optional<std::string> file = m.Find<std::string>(key);
  if (!file) return std::nullopt;
  const std::string folder = std::filesystem::path(m.document().file_name()).parent_path().string();
  const std::string path = ResolvePath(folder, *file);
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) {
    m.AddError(key, text.error().message);
    return std::nullopt;
  }
  Result<LaunchConfig> launch = ParseLaunch(key, *text, path, models);
  if (!launch.ok()) {
    m.AddError(key, launch.error().message);
    return std::nullopt;
  }
  if (launch->model.vocab == 0 && !m.Has("vocab")) {
    m.AddError(key, path +
                        " does not give the vocabulary size (the run's tokenizer sets it): add "
                        "model.vocab, e.g. vocab: 128256 for Llama 3");
    return std::nullopt;
  }
  return std::move(launch).value();
}

void ApplyLaunch(const LaunchConfig& l, train::TrainOptions& o) {
  const auto set = [](auto& field, const auto& value) {
    if (value) field = *value;
  };
  set(o.training.seq_len, l.seq_len);
  set(o.training.global_batch, l.global_batch);
  set(o.training.micro_batch, l.micro_batch);
  set(o.training.precision, l.precision);
  set(o.parallel.tp, l.tp);
  set(o.parallel.pp, l.pp);
  set(o.parallel.cp, l.cp);
  set(o.parallel.ep, l.ep);
  set(o.parallel.virtual_stages, l.virtual_stages);
  set(o.parallel.zero, l.zero);
  set(o.parallel.sequence_parallel, l.sequence_parallel);
  set(o.parallel.recompute, l.recompute);
  set(o.parallel.pipeline_schedule, l.pipeline_schedule);
}

}  // namespace dlsim::io
