// The latency of a tensor-parallel all-reduce as serving engines run it: the measured custom
// (one-shot / two-shot) kernel for the messages the engine gives it (EngineProfile), NCCL otherwise.
//
//   AllReduceTable t = *DefaultAllReduceTable();          // data/serving/tp_allreduce_latency.csv
//   Duration d = TpAllReduceTime(engine, t, bytes, tp, gpu_arch, nccl_time);
//
// Custom kernel: the measured latency at the GPU architecture and world size (hopper's rows for an
// architecture the table lacks), log-linear in bytes between rows, the smallest row below it, linear
// past the last row (the last two rows' slope); never above `nccl` (the NCCL model's time for the same
// message, launch included), which is also the time of a message the custom kernel does not take.
#ifndef DLSIM_SERVE_TP_ALLREDUCE_H_
#define DLSIM_SERVE_TP_ALLREDUCE_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"
#include "dlsim/serve/engine_profile.h"

namespace dlsim::serve {

// Measured (bytes, microseconds) points per (architecture, world size), sorted by bytes.
struct AllReduceTable {
  std::map<std::pair<std::string, int>, std::vector<std::pair<double, double>>> points;
  // The custom kernel's latency (us) at `bytes`; 0 when the table has no row for the world size.
  double CustomMicros(const std::string& architecture, int world, double bytes) const;
};

// Parses the CSV (architecture, world, bytes, us, source); errors name the file, line and column.
Result<AllReduceTable> ParseAllReduceTable(std::string_view csv_text, const std::string& file_name);
// The embedded data/serving/tp_allreduce_latency.csv.
Result<AllReduceTable> DefaultAllReduceTable();

// The all-reduce time of `bytes` over `tp` GPUs of architecture `arch` under `engine` (kCustom rule);
// `nccl` is the NCCL path's time. `nvlink`: the GPUs are all NVLink-connected.
Duration TpAllReduceTime(const EngineProfile& engine, const AllReduceTable& table, double bytes, int tp,
                         const std::string& arch, bool nvlink, Duration nccl);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_TP_ALLREDUCE_H_
