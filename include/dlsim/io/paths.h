// Paths named inside scenario files.
#ifndef DLSIM_IO_PATHS_H_
#define DLSIM_IO_PATHS_H_

#include <string>

namespace dlsim::io {

// `path` as named in a scenario: a relative path is relative to `base_dir` (the scenario's
// folder); an absolute or empty path, or an empty `base_dir`, is returned as it is.
std::string ResolvePath(const std::string& base_dir, const std::string& path);

}  // namespace dlsim::io

#endif  // DLSIM_IO_PATHS_H_
