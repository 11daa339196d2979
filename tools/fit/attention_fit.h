// `dlsim-fit attention`: fits each attention kernel family's constants (efficiency, per-kernel overhead,
// kv_half and head_dim_half, for the forward and the backward kernel each) on measured SDPA kernels listed in
// a `dlsim kernels` CSV, on the even rows of each family, and scores the odd rows (out of fold). Writes
// data/calibration/attention_backends.yaml.
#ifndef DLSIM_TOOLS_FIT_ATTENTION_FIT_H_
#define DLSIM_TOOLS_FIT_ATTENTION_FIT_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::fit {

// The YAML text of the fitted families of the `gpu`'s architecture, with `command` and the
// out-of-fold scores in it; `pytorch_default` names the family PyTorch's SDPA picks on that GPU.
Result<std::string> FitAttentionBackends(const std::vector<std::string>& ops_csvs, const std::string& gpu,
                                         const std::string& pytorch_default, const std::string& command);

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_ATTENTION_FIT_H_
