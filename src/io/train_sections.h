// Private: sections of a training scenario that other scenario readers share (train_scenario.cc).
#ifndef DLSIM_SRC_IO_TRAIN_SECTIONS_H_
#define DLSIM_SRC_IO_TRAIN_SECTIONS_H_

#include "dlsim/hw/catalog.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/train/options.h"

namespace dlsim::io::internal {

// The `hardware:` section of a training scenario (node defaults first, then gpu, gpus, gpus_per_node,
// nics_per_node, nic_gbps, network), finished (keys not read before the call are errors). Returns the
// GPU, or null after recording an error.
const hw::GpuSpec* ReadTrainHardware(const MapReader& h, const hw::Catalog& cat, train::HardwareOptions* o);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_TRAIN_SECTIONS_H_
