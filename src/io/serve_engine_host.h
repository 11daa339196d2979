// Private: the `engine_host:` section of a serve scenario (serve/engine_host.h): the keys the user wrote,
// laid over the engine profile's (and any calibration file's) CPU times by serve::HostOf. Each bad value is
// recorded at its key, with file and line.
#ifndef DLSIM_SRC_IO_SERVE_ENGINE_HOST_H_
#define DLSIM_SRC_IO_SERVE_ENGINE_HOST_H_

#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/engine_host.h"

namespace dlsim::io::internal {

// Keys (all optional): step_ms, first_token_ms (each 0 .. 10 s), per_request_us, stream_us (each 0 .. 1e7),
// async_output, async_scheduling (bool),
// scheduler_steps (1 .. 1024). An absent section: no keys.
serve::EngineHostKeys ReadEngineHost(const MapReader& m);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_SERVE_ENGINE_HOST_H_
