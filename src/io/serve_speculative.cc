#include "serve_speculative.h"

#include <string>

namespace dlsim::io::internal {

serve::SpeculativeOptions ReadSpeculative(const MapReader& m, const model::ModelCatalog& models) {
  serve::SpeculativeOptions s;
  if (!m.present()) return s;
  s.num_tokens = m.Get<int>("num_tokens", 0, Range::Between(1, 16));
  if (!m.Has("num_tokens"))
    m.AddError("num_tokens", "required in speculative: (draft tokens per step, 1..16)");
  if (auto a = m.Require<double>("acceptance_rate", Range::Between(0, 1))) s.acceptance_rate = *a;
  if (auto name = m.Find<std::string>("draft_model")) {
    if (auto d = models.Find(*name); d.ok())
      s.draft = **d;
    else
      m.AddError("draft_model", d.error().message);
  }
  m.Finish();
  return s;
}

void CheckSpeculative(const serve::ServeOptions& o, const MapReader& root) {
  const serve::SpeculativeOptions& s = o.speculative;
  if (s.num_tokens <= 0) return;
  const MapReader m = root.Section("speculative");
  if (o.hardware.pp > 1)
    root.Section("hardware").AddError("pp", "speculative decoding runs on one pipeline stage (pp 1)");
  if (o.offload.mode != serve::OffloadMode::kNone)
    root.Section("offload").AddError("mode", "offloading does not price a draft model; use mode: none");
  if (!s.draft) return;
  const model::ModelSpec& d = *s.draft;
  const int tp = o.hardware.tp;
  if (d.arch != model::Arch::kDecoder || d.moe.enabled() || d.mla.enabled())
    m.AddError("draft_model", "draft model '" + d.name + "' must be a dense decoder (no experts, no MLA)");
  else if (d.heads % tp != 0 || d.kv_heads % tp != 0)
    m.AddError("draft_model", "tp " + std::to_string(tp) + " does not divide draft model '" + d.name +
                                  "''s " + std::to_string(d.heads) + " heads and " +
                                  std::to_string(d.kv_heads) +
                                  " KV heads (the draft runs with the target's tp)");
}

}  // namespace dlsim::io::internal
