// `dlsim catalog list | show | import`: the hardware and model catalogs as tables or JSON; see
// app/catalog_command.h.
#include "dlsim/app/catalog_command.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/hf_config.h"
#include "dlsim/model/dit.h"
#include "dlsim/report/table.h"

namespace dlsim::app {
namespace {

// A parameter count as an exact JSON integer (the models give it as a double).
int64_t Count(double n) { return std::llround(n); }

using nlohmann::ordered_json;

std::string Num(double v, int digits = 6) { return FormatNumber(v, digits); }
std::string OrDash(double v) { return v > 0 ? Num(v) : "-"; }
std::string Aliases(const std::vector<std::string>& a) { return a.empty() ? "-" : Join(a, ", "); }

// --- JSON (keys as in the YAML files) -----------------------------------------------------------

ordered_json GpuJson(const hw::GpuSpec& g) {
  ordered_json j = {{"kind", "gpu"},
                    {"name", g.name},
                    {"aliases", g.aliases},
                    {"architecture", g.architecture},
                    {"source", g.source}};
  ordered_json peaks = ordered_json::object();
  for (hw::DType t : hw::kAllDTypes) peaks[std::string(hw::DTypeName(t))] = g.Peak(t).ToTFLOPS();
  j["dense_tflops"] = peaks;
  ordered_json sustained = ordered_json::object();
  for (hw::DType t : hw::kAllDTypes)
    if (g.sustained_fraction[static_cast<int>(t)] > 0)
      sustained[std::string(hw::DTypeName(t))] = g.sustained_fraction[static_cast<int>(t)];
  if (!sustained.empty()) j["sustained_fraction"] = sustained;
  j["memory_gib"] = g.hbm_capacity.ToGiB();
  j["memory_bandwidth_gb_per_s"] = g.hbm_bandwidth.ToGBps();
  j["sm_count"] = g.sm_count;
  j["l2_mib"] = g.l2_size.ToMiB();
  j["nvlink_gb_per_s"] = g.nvlink_bandwidth.ToGBps();
  j["pcie_gen"] = g.pcie_gen;
  j["pcie_lanes"] = g.pcie_lanes;
  j["pcie_gb_per_s"] = g.PcieBandwidth().ToGBps();
  j["power_w"] = g.power_watts;
  if (g.max_sm_clock_mhz > 0) j["max_sm_clock_mhz"] = g.max_sm_clock_mhz;
  if (g.sustained_sm_clock_mhz > 0) j["sustained_sm_clock_mhz"] = g.sustained_sm_clock_mhz;
  j["nvls"] = g.nvls;
  j["mig"] = ordered_json::array();
  for (const auto& p : g.mig) {
    j["mig"].push_back({{"name", p.name},
                        {"compute_slices", p.compute_slices},
                        {"memory_slices", p.memory_slices},
                        {"sms", p.sms},
                        {"memory_gib", p.memory.ToGiB()},
                        {"max_instances", p.max_instances},
                        {"start_slices", p.start_slices}});
  }
  return j;
}

ordered_json NodeJson(const hw::NodeSpec& n) {
  return {{"kind", "node"},
          {"name", n.name},
          {"aliases", n.aliases},
          {"source", n.source},
          {"gpu", n.gpu},
          {"gpus_per_node", n.gpus_per_node},
          {"fabric", hw::FabricName(n.fabric)},
          {"intra_gb_per_s", n.intra_bandwidth.ToGBps()},
          {"nics_per_node", n.nics_per_node},
          {"nic_gbps", n.nic_bandwidth.ToGbps()},
          {"network", n.network},
          {"host_memory_gib", n.host_memory.ToGiB()},
          {"host_memory_bandwidth_gb_per_s", n.host_memory_bandwidth.ToGBps()},
          {"cpu_cores", n.cpu_cores},
          {"gpus_per_pcie_switch", n.gpus_per_pcie_switch},
          {"local_disk_tb", n.local_disk.ToGB() / 1000},
          {"disk_bandwidth_gb_per_s", n.disk_bandwidth.ToGBps()}};
}

ordered_json NetworkJson(const hw::NetworkSpec& w) {
  return {{"kind", "network"},
          {"name", w.name},
          {"aliases", w.aliases},
          {"source", w.source},
          {"technology", w.technology},
          {"link_gbps", w.link_bandwidth.ToGbps()},
          {"latency_us", w.latency.ToMicros()},
          {"topology", hw::TopologyName(w.topology)},
          {"oversubscription", w.oversubscription}};
}

ordered_json ModelJson(const model::ModelSpec& m) {
  return {{"kind", "model"},
          {"name", m.name},
          {"aliases", m.aliases},
          {"source", m.source},
          {"arch", model::ArchName(m.arch)},
          {"layers", m.layers},
          {"hidden", m.hidden},
          {"heads", m.heads},
          {"kv_heads", m.kv_heads},
          {"ffn_hidden", m.ffn_hidden},
          {"vocab", m.vocab},
          {"gated_mlp", m.gated_mlp},
          {"tied_embeddings", m.tied_embeddings},
          {"attention_bias", m.attention_bias},
          {"linear_bias", m.linear_bias},
          {"norm", model::NormName(m.norm)},
          {"position_embedding", model::PositionEmbeddingName(m.position_embedding)},
          {"dropout", m.dropout},
          {"max_seq_len", m.max_seq_len},
          {"parameters", Count(m.ParameterCount())}};
}

ordered_json MultimodalJson(const model::MultimodalSpec& m) {
  const model::VisionEncoderSpec& v = m.vision;
  return {{"kind", "multimodal_model"},
          {"name", m.name},
          {"aliases", m.aliases},
          {"source", m.source},
          {"llm", m.llm_name},
          {"vision",
           {{"layers", v.layers},
            {"computed_layers", v.ComputedLayers()},
            {"hidden", v.hidden},
            {"heads", v.heads},
            {"ffn_hidden", v.ffn_hidden},
            {"patch_size", v.patch_size},
            {"image_size", v.image_size},
            {"tokens_per_image", v.TokensPerImage()},
            {"window_patches", v.WindowPatches()},
            {"full_attention_layers", v.full_attention_layers},
            {"parameters", Count(v.ParameterCount())}}},
          {"projector",
           {{"spatial_merge", m.projector.spatial_merge},
            {"norm", model::ProjectorNormName(m.projector.norm)},
            {"input", m.ProjectorInputWidth()},
            {"hidden", m.ProjectorHidden()},
            {"parameters", Count(m.ProjectorParameters())}}},
          {"llm_tokens_per_image", m.LlmTokensPerImage()},
          {"llm_parameters", Count(m.llm.ParameterCount())},
          {"parameters", Count(m.ParameterCount())}};
}

// A model's JSON with, for a DiT, its block kinds and DiT keys.
ordered_json ModelJsonWithDit(const model::ModelSpec& m) {
  ordered_json j = ModelJson(m);
  if (m.arch != model::Arch::kDit) return j;
  const model::DitSpec& d = m.dit;
  j["dit"] = {{"cross_attention", d.cross_attention},
              {"double_blocks", d.double_blocks},
              {"qk_norm", model::QkNormName(d.qk_norm)},
              {"modulation", model::ModulationName(d.modulation)},
              {"text_dim", d.text_dim},
              {"text_tokens", d.text_tokens},
              {"pooled_dim", d.pooled_dim},
              {"guidance_embed", d.guidance_embed},
              {"refiner_blocks", d.refiner_blocks},
              {"latent_channels", d.latent_channels},
              {"patch", d.patch},
              {"patch_frames", d.patch_frames},
              {"vae_spatial", d.vae_spatial},
              {"vae_temporal", d.vae_temporal}};
  return j;
}

// --- terminal tables ------------------------------------------------------------------------------

report::Table GpuTable(const hw::Catalog& c) {
  report::Table t("GPUs (dense peaks; bandwidths per direction)");
  t.AddColumn("Name").AddColumn("Aliases").AddColumn("Arch");
  t.AddColumn("FP32", "TFLOP/s").AddColumn("BF16", "TFLOP/s").AddColumn("FP8", "TFLOP/s");
  t.AddColumn("Memory", "GiB").AddColumn("Mem BW", "GB/s").AddColumn("NVLink", "GB/s").AddColumn("SMs");
  t.AddColumn("Power", "W").AddColumn("MIG");
  for (const hw::GpuSpec* g : c.Gpus()) {
    t.AddRow({g->name, Aliases(g->aliases), g->architecture, Num(g->Peak(hw::DType::kFp32).ToTFLOPS()),
              OrDash(g->Peak(hw::DType::kBf16).ToTFLOPS()), OrDash(g->Peak(hw::DType::kFp8).ToTFLOPS()),
              Num(g->hbm_capacity.ToGiB()), Num(g->hbm_bandwidth.ToGBps()),
              OrDash(g->nvlink_bandwidth.ToGBps()), std::to_string(g->sm_count), Num(g->power_watts),
              g->mig.empty() ? "-" : "yes"});
  }
  return t;
}

report::Table NodeTable(const hw::Catalog& c) {
  report::Table t("Nodes (bandwidths per direction)");
  t.AddColumn("Name").AddColumn("GPU").AddColumn("GPUs").AddColumn("Fabric").AddColumn("Intra", "GB/s/GPU");
  t.AddColumn("NICs").AddColumn("NIC", "Gb/s").AddColumn("Network").AddColumn("Host mem", "GiB");
  t.AddColumn("CPU cores");
  for (const hw::NodeSpec* n : c.Nodes()) {
    t.AddRow({n->name, n->gpu, std::to_string(n->gpus_per_node), std::string(hw::FabricName(n->fabric)),
              Num(n->intra_bandwidth.ToGBps()), std::to_string(n->nics_per_node),
              Num(n->nic_bandwidth.ToGbps()), n->network.empty() ? "-" : n->network,
              Num(n->host_memory.ToGiB()), std::to_string(n->cpu_cores)});
  }
  return t;
}

report::Table NetworkTable(const hw::Catalog& c) {
  report::Table t("Networks");
  t.AddColumn("Name").AddColumn("Technology").AddColumn("Link", "Gb/s").AddColumn("Latency", "µs");
  t.AddColumn("Topology").AddColumn("Oversubscription");
  for (const hw::NetworkSpec* w : c.Networks()) {
    t.AddRow({w->name, w->technology, Num(w->link_bandwidth.ToGbps()), Num(w->latency.ToMicros()),
              std::string(hw::TopologyName(w->topology)), Num(w->oversubscription) + ":1"});
  }
  return t;
}

report::Table ModelTable(const model::ModelCatalog& c) {
  report::Table t("Models");
  t.AddColumn("Name").AddColumn("Arch").AddColumn("Layers").AddColumn("Hidden").AddColumn("Heads");
  t.AddColumn("KV heads").AddColumn("FFN").AddColumn("Vocab").AddColumn("MLP").AddColumn("Params", "B");
  for (const model::ModelSpec* m : c.Models()) {
    t.AddRow({m->name, std::string(model::ArchName(m->arch)), std::to_string(m->layers),
              std::to_string(m->hidden), std::to_string(m->heads), std::to_string(m->kv_heads),
              std::to_string(m->ffn_hidden), std::to_string(m->vocab), m->gated_mlp ? "gated" : "plain",
              Num(m->ParameterCount() * 1e-9, 4)});
  }
  return t;
}

report::Table MultimodalTable(const model::MultimodalCatalog& c) {
  report::Table t("Multimodal models");
  t.AddColumn("Name")
      .AddColumn("LLM")
      .AddColumn("ViT layers")
      .AddColumn("ViT hidden")
      .AddColumn("Image", "px");
  t.AddColumn("Tokens / image").AddColumn("Vision", "B").AddColumn("Params", "B");
  for (const model::MultimodalSpec* m : c.Models()) {
    t.AddRow({m->name, m->llm_name, std::to_string(m->vision.layers), std::to_string(m->vision.hidden),
              std::to_string(m->vision.image_size), std::to_string(m->LlmTokensPerImage()),
              Num(m->vision.ParameterCount() * 1e-9, 4), Num(m->ParameterCount() * 1e-9, 4)});
  }
  return t;
}

// A two-column "Field / Value" table; values carry their units.
report::Table FieldTable(const std::string& title,
                         const std::vector<std::pair<std::string, std::string>>& rows) {
  report::Table t(title);
  t.AddColumn("Field", "", report::Align::kLeft).AddColumn("Value", "", report::Align::kLeft);
  for (const auto& [k, v] : rows) t.AddRow({k, v});
  return t;
}

void PrintGpu(const hw::GpuSpec& g, std::ostream& out) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"name", g.name}, {"aliases", Aliases(g.aliases)}, {"architecture", g.architecture}};
  for (hw::DType t : hw::kAllDTypes) {
    const double v = g.Peak(t).ToTFLOPS(), f = g.sustained_fraction[static_cast<int>(t)];
    const std::string sustained = f > 0 ? fmt::format(" (sustains {} of it)", Num(f)) : "";
    rows.emplace_back(fmt::format("dense peak {}", hw::DTypeName(t)),
                      v > 0 ? Num(v) + " TFLOP/s" + sustained : "unsupported");
  }
  rows.insert(
      rows.end(),
      {{"memory", Num(g.hbm_capacity.ToGiB()) + " GiB"},
       {"memory bandwidth", Num(g.hbm_bandwidth.ToGBps()) + " GB/s"},
       {"SMs", std::to_string(g.sm_count)},
       {"L2 cache", Num(g.l2_size.ToMiB()) + " MiB"},
       {"NVLink",
        g.nvlink_bandwidth.value() > 0 ? Num(g.nvlink_bandwidth.ToGBps()) + " GB/s per direction" : "none"},
       {"PCIe", fmt::format("Gen{} x{} = {} GB/s per direction", g.pcie_gen, g.pcie_lanes,
                            Num(g.PcieBandwidth().ToGBps(), 4))},
       {"power", Num(g.power_watts) + " W"},
       {"max SM clock", g.max_sm_clock_mhz > 0 ? Num(g.max_sm_clock_mhz) + " MHz" : "unknown"},
       {"sustained SM clock (full load)",
        g.sustained_sm_clock_mhz > 0 ? "at most " + Num(g.sustained_sm_clock_mhz) + " MHz" : "the max"},
       {"NVLink SHARP (NVLS)", g.nvls ? "yes" : "no"},
       {"source", g.source}});
  out << FieldTable("GPU " + g.name, rows);
  if (g.mig.empty()) {
    out << "\nMIG: not supported\n";
    return;
  }
  report::Table t("MIG profiles (slices of 7 compute, 8 memory)");
  t.AddColumn("Profile").AddColumn("Compute slices").AddColumn("Memory slices").AddColumn("SMs");
  t.AddColumn("Memory", "GiB").AddColumn("Max instances").AddColumn("Start slices", "", report::Align::kLeft);
  for (const auto& p : g.mig) {
    std::vector<std::string> starts;
    for (int s : p.start_slices) starts.push_back(std::to_string(s));
    t.AddRow({p.name, std::to_string(p.compute_slices), std::to_string(p.memory_slices),
              std::to_string(p.sms), Num(p.memory.ToGiB()), std::to_string(p.max_instances),
              Join(starts, ",")});
  }
  out << "\n" << t;
}

void PrintNode(const hw::NodeSpec& n, std::ostream& out) {
  out << FieldTable(
      "Node " + n.name,
      {{"name", n.name},
       {"aliases", Aliases(n.aliases)},
       {"GPU", fmt::format("{} x {}", n.gpus_per_node, n.gpu)},
       {"fabric", std::string(hw::FabricName(n.fabric))},
       {"intra-node bandwidth", Num(n.intra_bandwidth.ToGBps()) + " GB/s per GPU per direction"},
       {"NICs", fmt::format("{} x {} Gb/s", n.nics_per_node, Num(n.nic_bandwidth.ToGbps()))},
       {"network", n.network.empty() ? "-" : n.network},
       {"host memory", Num(n.host_memory.ToGiB()) + " GiB"},
       {"host memory bandwidth", Num(n.host_memory_bandwidth.ToGBps()) + " GB/s"},
       {"CPU cores", std::to_string(n.cpu_cores)},
       {"GPUs per PCIe switch", std::to_string(n.gpus_per_pcie_switch)},
       {"local disk", Num(n.local_disk.ToGB() / 1000) + " TB"},
       {"disk bandwidth", Num(n.disk_bandwidth.ToGBps()) + " GB/s"},
       {"source", n.source}});
}

void PrintNetwork(const hw::NetworkSpec& w, std::ostream& out) {
  out << FieldTable("Network " + w.name,
                    {{"name", w.name},
                     {"aliases", Aliases(w.aliases)},
                     {"technology", w.technology},
                     {"link bandwidth", Num(w.link_bandwidth.ToGbps()) + " Gb/s per direction"},
                     {"latency", Num(w.latency.ToMicros()) + " µs"},
                     {"topology", std::string(hw::TopologyName(w.topology))},
                     {"oversubscription", Num(w.oversubscription) + ":1"},
                     {"source", w.source}});
}

// The diffusion-transformer fields of a DiT (model/dit_spec.h).
void PrintDit(const model::ModelSpec& m, std::ostream& out) {
  const model::DitSpec& d = m.dit;
  using model::DitBlockKind;
  const std::string blocks = d.cross_attention ? fmt::format("{} cross-attention", m.layers)
                                               : fmt::format("{} double-stream + {} single-stream",
                                                             d.double_blocks, m.layers - d.double_blocks);
  std::string text = fmt::format("{} tokens of width {}{}", d.text_tokens, d.text_dim,
                                 d.text_mlp ? " (MLP projection)" : "");
  if (d.refiner_blocks > 0)
    text += fmt::format("; refiner {} blocks of {} over width {}", d.refiner_blocks, d.refiner_hidden,
                        d.refiner_in);
  out << FieldTable(
      "Diffusion transformer " + m.name,
      {{"blocks", blocks},
       {"q/k norm, modulation",
        std::string(model::QkNormName(d.qk_norm)) + ", " + std::string(model::ModulationName(d.modulation))},
       {"text", text},
       {"conditioning", fmt::format("timestep {}{}{}", d.frequency_dim,
                                    d.pooled_dim > 0 ? fmt::format(", pooled {}", d.pooled_dim) : "",
                                    d.guidance_embed ? ", guidance" : "")},
       {"latents",
        fmt::format("{} channels, VAE {}x{}x{}{}, patch {}x{}x{}", d.latent_channels, d.vae_temporal,
                    d.vae_spatial, d.vae_spatial, d.vae_causal && d.vae_temporal > 1 ? " causal" : "",
                    d.patch_frames, d.patch, d.patch)},
       {"block parameters",
        d.cross_attention
            ? Num(model::DitBlockParameters(m, DitBlockKind::kCrossAttention) * 1e-6, 5) + " M"
            : fmt::format("{} M double, {} M single",
                          Num(model::DitBlockParameters(m, DitBlockKind::kDoubleStream) * 1e-6, 5),
                          Num(model::DitBlockParameters(m, DitBlockKind::kSingleStream) * 1e-6, 5))},
       {"embedding / final layer", fmt::format("{} M / {} M", Num(m.EmbeddingParameters() * 1e-6, 5),
                                               Num(m.HeadParameters() * 1e-6, 5))}});
}

// "none", "4096 tokens, every layer" or "1024 tokens, 52 of 62 layers (one global in every 6)".
std::string SlidingWindowText(const model::ModelSpec& m) {
  if (m.sliding_window <= 0) return "none";
  if (m.WindowedLayers() == m.layers) return fmt::format("{} tokens, every layer", m.sliding_window);
  return fmt::format("{} tokens, {} of {} layers (one global in every {})", m.sliding_window,
                     m.WindowedLayers(), m.layers, m.sliding_window_pattern);
}

void PrintModel(const model::ModelSpec& m, std::ostream& out) {
  out << FieldTable(
      "Model " + m.name,
      {{"name", m.name},
       {"aliases", Aliases(m.aliases)},
       {"architecture", std::string(model::ArchName(m.arch))},
       {"layers", std::to_string(m.layers)},
       {"hidden", std::to_string(m.hidden)},
       {"heads", fmt::format("{} (head dim {})", m.heads, m.head_dim())},
       {"KV heads", std::to_string(m.kv_heads)},
       {"FFN hidden", fmt::format("{} ({})", m.ffn_hidden, m.gated_mlp ? "gated, 3 matrices" : "2 matrices")},
       {"vocabulary", std::to_string(m.vocab)},
       {"tied embeddings", m.tied_embeddings ? "yes" : "no"},
       {"biases", m.linear_bias ? "all linear layers" : (m.attention_bias ? "QKV only" : "none")},
       {"norm", std::string(model::NormName(m.norm))},
       {"position embedding", std::string(model::PositionEmbeddingName(m.position_embedding))},
       {"dropout", Num(m.dropout)},
       {"max sequence length", std::to_string(m.max_seq_len)},
       {"sliding window", SlidingWindowText(m)},
       {"parameters", fmt::format("{} B ({} per layer, {} embedding)", Num(m.ParameterCount() * 1e-9, 5),
                                  Num(m.LayerParameters() * 1e-6, 5) + " M",
                                  Num(m.EmbeddingParameters() * 1e-6, 5) + " M")},
       {"source", m.source}});
  if (m.arch == model::Arch::kDit) PrintDit(m, out);
  if (!m.moe.enabled()) return;
  const model::MoeSpec& e = m.moe;
  out << FieldTable(
      "Experts of " + m.name,
      {{"routed experts", fmt::format("{} (top {}, width {})", e.experts, e.top_k, e.expert_ffn_hidden)},
       {"shared experts", std::to_string(e.shared_experts)},
       {"dense layers first", std::to_string(e.first_dense_layers)},
       {"capacity factor", e.capacity_factor > 0 ? Num(e.capacity_factor) : "dropless"},
       {"attention", m.mla.enabled()
                         ? fmt::format("MLA (q rank {}, kv rank {})", m.mla.q_lora_rank, m.mla.kv_lora_rank)
                         : "multi-head / grouped-query"},
       {"activated parameters", Num(m.ActiveParameterCount() * 1e-9, 4) + " B"},
       {"MoE layer parameters", Num(m.MoeLayerParameters() * 1e-6, 5) + " M"}});
}

void PrintMultimodal(const model::MultimodalSpec& m, std::ostream& out) {
  const model::VisionEncoderSpec& v = m.vision;
  std::vector<std::string> full;
  for (int i : v.full_attention_layers) full.push_back(std::to_string(i));
  out << FieldTable(
      "Multimodal model " + m.name,
      {{"name", m.name},
       {"aliases", Aliases(m.aliases)},
       {"LLM", fmt::format("{} ({} B)", m.llm_name, Num(m.llm.ParameterCount() * 1e-9, 5))},
       {"vision layers",
        fmt::format("{} ({} run: select_layer {})", v.layers, v.ComputedLayers(), v.select_layer)},
       {"vision hidden", fmt::format("{}, {} heads, FFN {} ({})", v.hidden, v.heads, v.ffn_hidden,
                                     v.gated_mlp ? "gated" : "2 matrices")},
       {"patches", fmt::format("{} px patches of {} px images: {} tokens per image in the encoder",
                               v.patch_size, v.image_size, v.TokensPerImage())},
       {"attention", v.WindowPatches() > 0 ? fmt::format("windows of {} patches, full in layers {}",
                                                         v.WindowPatches(), Join(full, ","))
                                           : "full"},
       {"projector",
        fmt::format("{} x {} merge, {} -> {} -> {}", m.projector.spatial_merge, m.projector.spatial_merge,
                    m.ProjectorInputWidth(), m.ProjectorHidden(), m.llm.hidden)},
       {"LLM tokens per image", std::to_string(m.LlmTokensPerImage())},
       {"parameters", fmt::format("{} B (vision {} B, projector {} M)", Num(m.ParameterCount() * 1e-9, 5),
                                  Num(v.ParameterCount() * 1e-9, 5), Num(m.ProjectorParameters() * 1e-6, 5))},
       {"source", m.source}});
}

// --- commands ---------------------------------------------------------------------------------------

const std::vector<std::string> kKinds = {"gpus", "nodes", "networks", "models", "multimodals"};

int RunList(std::string kind, bool json, const catalog::Catalogs& c, std::ostream& out, std::ostream& err) {
  if (!kind.empty() && kind.back() != 's') kind += 's';  // "gpu" -> "gpus"
  if (!kind.empty() && std::find(kKinds.begin(), kKinds.end(), kind) == kKinds.end()) {
    err << "dlsim catalog list: " << UnknownNameMessage("kind", kind, kKinds) << "\n";
    return kExitUsage;
  }
  auto want = [&](const char* k) { return kind.empty() || kind == k; };
  if (json) {
    ordered_json j = ordered_json::object();
    if (want("gpus"))
      for (const auto* g : c.hardware.Gpus()) j["gpus"].push_back(GpuJson(*g));
    if (want("nodes"))
      for (const auto* n : c.hardware.Nodes()) j["nodes"].push_back(NodeJson(*n));
    if (want("networks"))
      for (const auto* w : c.hardware.Networks()) j["networks"].push_back(NetworkJson(*w));
    if (want("models"))
      for (const auto* m : c.models.Models()) j["models"].push_back(ModelJsonWithDit(*m));
    if (want("multimodals"))
      for (const auto* m : c.multimodal.Models()) j["multimodal_models"].push_back(MultimodalJson(*m));
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  std::vector<report::Table> tables;
  if (want("gpus")) tables.push_back(GpuTable(c.hardware));
  if (want("nodes")) tables.push_back(NodeTable(c.hardware));
  if (want("networks")) tables.push_back(NetworkTable(c.hardware));
  if (want("models")) tables.push_back(ModelTable(c.models));
  if (want("multimodals")) tables.push_back(MultimodalTable(c.multimodal));
  for (size_t i = 0; i < tables.size(); ++i) out << (i ? "\n" : "") << tables[i];
  return kExitOk;
}

std::string UnknownEntryMessage(const std::string& name, const catalog::Catalogs& c) {
  std::vector<std::string> all = c.hardware.GpuNamesAndAliases();
  for (const auto& v : {c.hardware.NodeNames(), c.hardware.NetworkNames(), c.models.NamesAndAliases(),
                        c.multimodal.Names()}) {
    all.insert(all.end(), v.begin(), v.end());
  }
  if (model::IsHubId(name)) return "unknown catalog entry: " + model::HubIdHint(name);
  std::string msg = "unknown catalog entry '" + name + "'";
  if (auto m = ClosestMatch(name, all)) msg += " (did you mean '" + *m + "'?)";
  return msg + "; see 'dlsim catalog list' for the names";
}

int RunShow(const std::string& name, bool json, const catalog::Catalogs& c, std::ostream& out,
            std::ostream& err) {
  auto emit = [&](const ordered_json& j, auto print) {
    if (json) {
      out << j.dump(2) << "\n";
    } else {
      print();
    }
    return kExitOk;
  };
  if (auto g = c.hardware.FindGpu(name); g.ok()) return emit(GpuJson(**g), [&] { PrintGpu(**g, out); });
  if (auto n = c.hardware.FindNode(name); n.ok()) return emit(NodeJson(**n), [&] { PrintNode(**n, out); });
  if (auto w = c.hardware.FindNetwork(name); w.ok())
    return emit(NetworkJson(**w), [&] { PrintNetwork(**w, out); });
  if (auto m = c.models.Find(name); m.ok()) return emit(ModelJsonWithDit(**m), [&] { PrintModel(**m, out); });
  if (auto m = c.multimodal.Find(name); m.ok())
    return emit(MultimodalJson(**m), [&] { PrintMultimodal(**m, out); });
  err << "dlsim catalog show: " << UnknownEntryMessage(name, c) << "\n";
  return kExitUsage;
}

int RunImport(const CatalogArgs& args, std::ostream& out, std::ostream& err) {
  auto spec = io::LoadHfConfig(args.file);
  if (!spec.ok()) return ReportError("catalog import", spec.error(), err);
  if (!args.name.empty()) spec->name = args.name;
  out << io::FormatModelCatalogEntry(*spec);
  return kExitOk;
}

}  // namespace

int RunCatalogCommand(const CatalogArgs& args, const CommonArgs& common, std::ostream& out,
                      std::ostream& err) {
  if (args.verb == CatalogArgs::Verb::kImport) return RunImport(args, out, err);
  Result<catalog::Catalogs> c = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!c.ok()) return ReportError("catalog", c.error(), err);
  if (args.verb == CatalogArgs::Verb::kList) return RunList(args.kind, args.json, *c, out, err);
  return RunShow(args.name, args.json, *c, out, err);
}

}  // namespace dlsim::app
