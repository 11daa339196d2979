// Multi-task workloads (multitask/options.h) from YAML: one workload at the top level of a file, or a
// `workloads:` list of them (the Spindle zoo, data/repro/spindle_zoo.yaml) beside an optional
// `definitions:` mapping that is not read (a home for YAML anchors). Keys in docs/multitask.md:
//
//   name: clip-3              # required
//   source: "where the setup comes from"
//   hardware: {node: dgx-a100, gpus: 16, intra_gb_per_s: 200}   # train's hardware keys + intra_gb_per_s
//   training: {precision: bf16, attention: flash, recompute: none, sequence_parallel: true, host_floor: true}
//   placement: min_movement   # | in_order
//   cost: {model: roofline}
//   modules:
//     - {name: vit, model: {layers: 32, hidden: 1280, heads: 16, arch: encoder}}   # inline shape
//     - {name: llm, model: {name: llama2-7b, vocab: 151936}}                       # catalog + overrides
//     - {name: lm_head, head: {hidden: 4096, out_features: 151936, norm: rmsnorm}}
//   tasks:
//     - name: caption
//       batch: 128             # samples per step
//       stages:
//         - {name: image, module: vit, tokens: 1025}
//         - {name: text, module: llm, tokens: 512}        # after: the previous stage
//         - {name: loss, module: lm_head, tokens: 512}
//
// An inline shape needs layers, hidden and heads (vocab is not used by transformer layers). Errors name
// the file, line, column and key; the workload rules of multitask::Validate are reported at the
// workload.
//
//   auto w = io::ParseMultitaskWorkloads(text, "zoo.yaml", cat->hardware, cat->models);
#ifndef DLSIM_IO_MULTITASK_WORKLOAD_H_
#define DLSIM_IO_MULTITASK_WORKLOAD_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/studies/multitask/options.h"

namespace dlsim::io {

// Error: kParse for malformed YAML, kInvalidArgument otherwise (every error found, in file order).
Result<std::vector<multitask::MultitaskOptions>> ParseMultitaskWorkloads(std::string_view text,
                                                                         std::string file_name,
                                                                         const hw::Catalog& hardware,
                                                                         const model::ModelCatalog& models);

}  // namespace dlsim::io

#endif  // DLSIM_IO_MULTITASK_WORKLOAD_H_
