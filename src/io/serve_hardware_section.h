// Private: the `hardware:` section of a serve scenario (the GPU, tp, pp, ep, replicas, memory_margin, a
// locked SM clock, a MIG partition) and the layout checks only the model can make. Each error is recorded at
// the key the user wrote, with file and line.
#ifndef DLSIM_SRC_IO_SERVE_HARDWARE_SECTION_H_
#define DLSIM_SRC_IO_SERVE_HARDWARE_SECTION_H_

#include "dlsim/hw/catalog.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/options.h"

namespace dlsim::io::internal {

// Reads the hardware section `h` into the GPU (a catalog entry, locked at `sm_clock_mhz` where given, then
// partitioned by `mig`) and the hardware options of `o`.
void ReadServeHardware(const MapReader& h, const hw::Catalog& hardware, serve::ServeOptions& o);
// Records at hardware section `h` the layout errors that types cannot catch: tp must divide the model's heads
// and KV heads, pp its layers.
void CheckServeLayout(const serve::ServeOptions& o, const MapReader& h, const Document& doc);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_SERVE_HARDWARE_SECTION_H_
