// A training run as another tool launches it: Megatron-LM arguments (a launch script or a file of arguments),
// a NeMo 1.x recipe YAML, or a torchtitan TOML. A scenario names one in its model section, and dlsim takes
// the keys that format shares with its own: the model's shape, and the layout, batch, precision and
// recomputation the run uses, laid under the scenario's own keys (a key the scenario gives wins). The
// format's stack profile (data/catalog/stacks.yaml) comes with it unless the scenario names another.
//
//   model: {megatron_args: pretrain_llama3_8b.sh}     # --num-layers 32 --hidden-size 4096 ... (or $VARS set
//   in it) model: {nemo_config: llama3_8b.yaml}              # NeMo-Framework-Launcher
//   conf/training/llama/... model: {torchtitan_config: llama3_8b.toml}        # [model] name = "llama3",
//   flavor = "8B" hardware: {gpu: h100-sxm5-80gb, gpus: 64}
//
// What each format gives, and what it cannot (a vocabulary the tokenizer sets; torchtitan's world size):
// docs/scenario-format.md, "Launch configurations". Errors name the file, the line and the argument or key.
#ifndef DLSIM_IO_LAUNCH_CONFIG_H_
#define DLSIM_IO_LAUNCH_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/train/options.h"

namespace dlsim::io {

struct LaunchConfig {
  std::string format;  // "megatron_args" | "nemo_config" | "torchtitan_config" (the scenario key)
  std::string stack;   // the stack profile of the format's family
  // The shape; vocab 0 when the file does not give it (the tokenizer sets it: the scenario must).
  model::ModelSpec model;
  // The layout and training keys the file gives; unset: the stack's or the scenario's.
  std::optional<int> seq_len, global_batch, micro_batch, gpus;
  std::optional<int> tp, pp, cp, ep, virtual_stages, zero;
  std::optional<bool> sequence_parallel;
  std::optional<hw::DType> precision;
  std::optional<train::Recompute> recompute;
  std::optional<train::PipelineScheduleKind> pipeline_schedule;
};

// The parsers; `file_name` is used in messages. Error kParse: a malformed file, a value of the wrong type or
// outside dlsim's limits, a required key missing (layers, hidden, heads), an unknown torchtitan flavor.
Result<LaunchConfig> ParseMegatronArgs(std::string_view text, const std::string& file_name);
Result<LaunchConfig> ParseNemoConfig(std::string_view text, const std::string& file_name);
// torchtitan's [model] flavor names a published shape: the catalog entry it matches (llama3 8B: llama3-8b).
Result<LaunchConfig> ParseTorchtitanConfig(std::string_view text, const std::string& file_name,
                                           const model::ModelCatalog& models);

// A launch of `format` (its scenario key) whose model is named after `file_name`'s stem, with `stack` and the
// source "<what>: <file_name>"; for the parsers.
LaunchConfig NewLaunch(std::string format, std::string stack, const std::string& file_name,
                       const std::string& what);

// The scenario keys that name a launch configuration.
inline constexpr std::string_view kLaunchKeys[] = {"megatron_args", "nemo_config", "torchtitan_config"};

// The launch configuration a model section names (its file relative to the scenario's folder), or nullopt
// when it names none or it failed (the error is the document's, at the key: unreadable, malformed, given with
// `name`, `hf_config` or another launch key, no vocabulary and no `vocab` key).
std::optional<LaunchConfig> ReadLaunchKey(const MapReader& model_section, const model::ModelCatalog& models);

// Lays the file's layout and training keys over `o` (after the stack profile, before the scenario's keys).
void ApplyLaunch(const LaunchConfig& launch, train::TrainOptions& o);

}  // namespace dlsim::io

#endif  // DLSIM_IO_LAUNCH_CONFIG_H_
