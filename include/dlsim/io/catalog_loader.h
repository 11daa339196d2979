// Loading the hardware and model catalogs: embedded YAML (data/catalog/*.yaml) plus user files.
//
// A user file (`--catalog FILE`) may hold any of the top-level keys gpus:, nodes:, networks:,
// models:, each a list of entries. An entry whose name (or alias) is already in the catalog
// overrides only the keys it gives; a new name adds an entry and must give the required keys.
// Keys, units and defaults: docs/catalog.md.
//
//   auto cat = io::LoadCatalogs({"my-gpu.yaml"});
//   if (!cat.ok()) { std::cerr << cat.error().message << "\n"; return 1; }
//   const hw::GpuSpec& g = *cat->hardware.FindGpu("my-gpu").value();
//
// Errors read "FILE:LINE:COL: gpus[3].memory_gib: expected ..., found ...; allowed: ..." with a
// "did you mean" for misspelled keys and names (see yaml_reader.h). Stateless; thread-safe.
#ifndef DLSIM_IO_CATALOG_LOADER_H_
#define DLSIM_IO_CATALOG_LOADER_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/model/model_spec.h"

namespace dlsim::io {

using catalog::Catalogs;

// The embedded catalogs, then each of `extra_files` merged in order, and the embedded
// calibrations (data/calibration/compute.yaml, network.yaml, training.yaml). Error: kNotFound for a
// missing file, kParse for malformed YAML, kInvalidArgument for anything else (unknown key,
// wrong type, out-of-range value, a node naming an unknown GPU or network, ...). Each of
// `calibration_files` (`--calibration FILE`: a training calibration, `dlsim calibrate`'s output) is
// then laid over the embedded training calibration in order (cost::Overlay): the constants it sets
// replace the shipped ones. Its kernel-level rates (GEMM, attention, elementwise, optimizer, copy
// efficiencies by architecture) are also laid over `compute`, which `serve` prices with; the embedded
// training calibration (fitted on Megatron runs) is not.
Result<Catalogs> LoadCatalogs(const std::vector<std::string>& extra_files,
                              const std::vector<std::string>& calibration_files = {});

// Merges one YAML document into `catalogs`. `file_name` is used in messages only. On error
// `catalogs` may hold the entries merged before the failing one.
Status MergeCatalogText(std::string_view text, const std::string& file_name, Catalogs& catalogs);
// ReadTextFile + MergeCatalogText.
Status MergeCatalogFile(const std::string& path, Catalogs& catalogs);

// Reads the model shape keys (arch, layers, hidden, heads, kv_heads, ffn_hidden, vocab, gated_mlp,
// tied_embeddings, attention_bias, linear_bias, norm, position_embedding, dropout, max_seq_len)
// present in `m` into `spec`, marking them known; absent keys keep `spec`'s values. When
// `is_new` the shape keys layers, hidden, heads and vocab (not for arch dit) are required. kv_heads and
// ffn_hidden follow heads and hidden (MHA, 4 x hidden) unless `spec` had other values or they
// are given. Errors are recorded in m's document; does not call m.Finish().
void ReadModelShape(const MapReader& m, model::ModelSpec& spec, bool is_new);
// Records each of spec.ShapeIssues() (model/model_spec.h: heads divide hidden, kv_heads divide
// heads, ...) at the first of its keys that `m` gives, e.g. "model.kv_heads: heads 32 is not a
// multiple of kv_heads 5 (...)"; an issue none of whose keys is given is recorded at the section as
// "model 'NAME': MESSAGE". The one shape check of train and serve scenarios.
void CheckModelShape(const MapReader& m, const model::ModelSpec& spec);
// Reads the mixture-of-experts keys (experts, top_k, expert_ffn_hidden, shared_experts,
// first_dense_layers, capacity_factor), MLA's (q_lora_rank, kv_lora_rank, qk_nope_head_dim,
// qk_rope_head_dim, v_head_dim), head_dim and the diffusion-transformer keys (model/dit_spec.h:
// cross_attention, double_blocks, qk_norm, modulation, text_dim, ... vae_causal) present in `m` into
// `spec` (ReadModelShape calls it; the train scenario's model section too). expert_ffn_hidden follows
// ffn_hidden unless given.
void ReadMoeAndMlaShape(const MapReader& m, model::ModelSpec& spec);
// The keys ReadMoeAndMlaShape reads that `s` sets (none for a dense multi-head model; every DiT key for a
// DiT), one "KEY: VALUE" line each after `indent`: what catalog import and the planner's best-layout
// scenario write.
std::string FormatMoeAndMlaKeys(const model::ModelSpec& s, const std::string& indent);
// The keys ReadModelShape reads.
const std::vector<std::string>& ModelShapeKeys();
// The scenario names of model::Arch: decoder, encoder, dit.
std::vector<std::pair<std::string, model::Arch>> ArchNames();

}  // namespace dlsim::io

#endif  // DLSIM_IO_CATALOG_LOADER_H_
