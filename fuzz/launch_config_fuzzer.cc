// Fuzz target: the launch-configuration readers (`model: {megatron_args | nemo_config | torchtitan_config:
// FILE}`, io/launch_config.h): each input is read as Megatron-LM arguments, as a NeMo recipe and as a
// torchtitan TOML. On success the launch must be usable as a scenario's layer: every shape count and degree
// it gives positive and within dlsim's limits, the parameter count (with a vocabulary) finite and positive,
// and the launch laid over a default training scenario must summarise.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlsim/io/launch_config.h"
#include "dlsim/io/train_scenario.h"
#include "fuzz_env.h"

namespace {

void CheckLaunch(const dlsim::io::LaunchConfig& c) {
  using dlsim::fuzz::Fail;
  const dlsim::model::ModelSpec& m = c.model;
  if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.kv_heads < 1 || m.ffn_hidden < 1 || m.vocab < 0)
    Fail(c.format + ": a shape count below 1: layers " + std::to_string(m.layers) + ", hidden " +
         std::to_string(m.hidden) + ", heads " + std::to_string(m.heads) + ", kv_heads " +
         std::to_string(m.kv_heads));
  for (const std::optional<int>& d :
       {c.tp, c.pp, c.cp, c.ep, c.virtual_stages, c.seq_len, c.micro_batch, c.global_batch})
    if (d && *d < 1) Fail(c.format + ": a degree or batch below 1: " + std::to_string(*d));
  dlsim::model::ModelSpec with_vocab = m;
  if (with_vocab.vocab == 0) with_vocab.vocab = 32000;
  const double params = with_vocab.ParameterCount();
  if (!std::isfinite(params) || params <= 0) Fail(c.format + ": parameter count " + std::to_string(params));
  dlsim::train::TrainOptions o;
  o.model = with_vocab;
  dlsim::io::ApplyLaunch(c, o);
  (void)dlsim::io::SummarizeTrainOptions(o);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string_view text = fuzz::Text(data, size);
  const catalog::Catalogs& cat = fuzz::Catalogs();
  if (auto c = io::ParseMegatronArgs(text, "run.sh"); c.ok()) CheckLaunch(*c);
  if (auto c = io::ParseNemoConfig(text, "recipe.yaml"); c.ok()) CheckLaunch(*c);
  if (auto c = io::ParseTorchtitanConfig(text, "train.toml", cat.models); c.ok()) CheckLaunch(*c);
  return 0;
}
