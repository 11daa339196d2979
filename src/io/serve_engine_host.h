// Private: the `engine_host:` section of a serve scenario (serve/engine_host.h): the engine profile's CPU
// times with the keys the user wrote laid over them. Each bad value is recorded at its key, with file and
// line.
#ifndef DLSIM_SRC_IO_SERVE_ENGINE_HOST_H_
#define DLSIM_SRC_IO_SERVE_ENGINE_HOST_H_

#include <optional>

#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/engine_host.h"

namespace dlsim::io::internal {

// Keys (all optional): step_ms, per_request_us, first_token_ms (each 0 .. 10 s), async_output (bool),
// scheduler_steps (1 .. 1024). An absent section: nullopt (the profile's values apply).
std::optional<serve::EngineHost> ReadEngineHost(const MapReader& m, const serve::EngineHost& profile);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_SERVE_ENGINE_HOST_H_
