#include "serve_moe_checks.h"

#include <string>

namespace dlsim::io::internal {
namespace {

std::string S(int v) { return std::to_string(v); }

void CheckExpertParallel(const serve::ServeOptions& o, const MapReader& h) {
  const int ep = o.hardware.ep, tp = o.hardware.tp;
  if (ep == 1) return;
  if (!o.model.moe.enabled()) {
    h.AddError("ep", "ep " + S(ep) + " with model '" + o.model.name +
                         "', which has no experts (ep is for MoE models)");
  } else if (ep != tp) {
    h.AddError(
        "ep",
        "ep " + S(ep) + " with tp " + S(tp) +
            ": ep is 1 (each expert split over the tp GPUs) or tp (the experts spread whole over them)");
  } else if (o.model.moe.experts % ep != 0) {
    h.AddError("ep", "ep " + S(ep) + " does not divide the model's " + S(o.model.moe.experts) + " experts");
  }
}

}  // namespace

void CheckServeMoe(const serve::ServeOptions& o, const MapReader& root, const Document& doc) {
  CheckExpertParallel(o, root.Section("hardware"));
  const model::ModelSpec& m = o.model;
  const MapReader model = root.Section("model");
  if (m.mla.enabled())
    doc.AddError(
        model.location(), "model",
        "model '" + m.name +
            "' has multi-head latent attention (MLA); dlsim serve prices multi-head and grouped-query "
            "attention (MoE models without MLA are served: Mixtral, Qwen-MoE)");
  if (!m.moe.enabled()) return;
  if (o.offload.mode != serve::OffloadMode::kNone)
    root.Section("offload").AddError(
        "mode", "offloading prices dense layers; model '" + m.name + "' has experts (use mode: none)");
  if (o.weight_sparsity > 0)
    model.AddError("weight_sparsity", "sparse weights (Flash-LLM) are priced for dense layers; model '" +
                                          m.name + "' has experts");
}

}  // namespace dlsim::io::internal
