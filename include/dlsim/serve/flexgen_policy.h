// FlexGen's own offloading policy search (Sheng et al., ICML 2023), as the Select-N paper's baseline
// runs it: choose the fractions of every layer's weights and KV cache held in host memory, and the
// batch, that maximise decode throughput (tokens per second) under the GPU memory, ignoring any
// latency SLO. FlexGen solves a linear program over the same placement variables; we search a grid
// (weight fraction 0..1 in steps of 0.05, KV fraction 0..1 in steps of 0.1) with dlsim's iteration
// cost: batch b = the requests of median context (prompt + half the output) the cache holds, at
// most scheduler.max_batch_size, with room for the longest request (prompt.max + output.max: a
// placement that cannot hold it cannot serve the workload); time per token = the decode iteration with every
// layer taking max(compute, its weight and KV streaming) over b.
//
//   serve::FlexGenPolicy p = serve::SearchFlexGenPolicy(options, cost);
//   options.offload.mode = OffloadMode::kStatic;
//   options.offload.weight_fraction = p.weight_fraction; options.offload.kv_fraction = p.kv_fraction;
//
// Pure function of its arguments.
#ifndef DLSIM_SERVE_FLEXGEN_POLICY_H_
#define DLSIM_SERVE_FLEXGEN_POLICY_H_

#include <cstdint>

#include "dlsim/serve/iteration_cost.h"
#include "dlsim/serve/options.h"

namespace dlsim::serve {

struct FlexGenPolicy {
  double weight_fraction = 0;  // of every layer's weights, in host memory
  double kv_fraction = 0;      // of every layer's KV cache, in host memory
  int64_t batch = 0;           // the batch the search assumed
  double tokens_per_s = 0;     // its predicted decode throughput (0: nothing fits)
};

FlexGenPolicy SearchFlexGenPolicy(const ServeOptions& o, const IterationCostModel& cost);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_FLEXGEN_POLICY_H_
