// Private: the `speculative:` section of a serve scenario (serve/options.h, SpeculativeOptions), with the
// checks that need the rest of the scenario: the draft on the replica's layout, and the features that exclude
// it. Each error is recorded at the key the user wrote, with file and line.
#ifndef DLSIM_SRC_IO_SERVE_SPECULATIVE_H_
#define DLSIM_SRC_IO_SERVE_SPECULATIVE_H_

#include "dlsim/io/yaml_reader.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/serve/options.h"

namespace dlsim::io::internal {

// Keys: num_tokens (1..16; vLLM's num_speculative_tokens), acceptance_rate (0..1, required with num_tokens),
// draft_model (a catalog model; absent: n-gram drafting at no GPU cost).
serve::SpeculativeOptions ReadSpeculative(const MapReader& m, const model::ModelCatalog& models);
// After every section is read: the draft's heads divide by tp, pp is 1, no offloading, a decoder draft.
void CheckSpeculative(const serve::ServeOptions& o, const MapReader& root);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_SERVE_SPECULATIVE_H_
