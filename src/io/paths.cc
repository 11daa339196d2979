#include "dlsim/io/paths.h"

#include <filesystem>

namespace dlsim::io {

std::string ResolvePath(const std::string& base_dir, const std::string& path) {
  if (base_dir.empty() || path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).string();
}

}  // namespace dlsim::io
