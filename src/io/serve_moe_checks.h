// Private: the checks a serve scenario's mixture-of-experts model needs once every section is read
// (serve/moe_step.h prices it): expert parallelism (`hardware.ep`) that the layout can run, and the features
// that price dense layers only (offloading, sparse weights) or attention dlsim serve does not price (MLA).
// Each error is recorded at the key the user wrote, with file and line.
#ifndef DLSIM_SRC_IO_SERVE_MOE_CHECKS_H_
#define DLSIM_SRC_IO_SERVE_MOE_CHECKS_H_

#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/options.h"

namespace dlsim::io::internal {

// `root` is the scenario's top level; `o` holds what was read from it.
void CheckServeMoe(const serve::ServeOptions& o, const MapReader& root, const Document& doc);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_SERVE_MOE_CHECKS_H_
