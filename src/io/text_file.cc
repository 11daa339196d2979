// Reading input files: regular files only, within the input-size limit (io/yaml_reader.h).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dlsim/core/input_files.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {

int64_t MaxInputFileBytes() {
  const char* env = std::getenv("DLSIM_MAX_INPUT_MIB");
  const double mib = env ? std::strtod(env, nullptr) : 0;
  return mib > 0 && mib < 1e6 ? static_cast<int64_t>(mib * 1048576) : kDefaultMaxInputFileBytes;
}

Result<std::string> ReadTextFile(const std::string& path) { return ReadTextFile(path, MaxInputFileBytes()); }

Result<std::string> ReadTextFile(const std::string& path, int64_t limit) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    return Error::NotFound("cannot open '" + path + "': " + (ec ? ec.message() : "no such file"));
  if (std::filesystem::is_directory(status))
    return Error::NotFound("cannot read '" + path + "': it is a directory, not a file");
  if (!std::filesystem::is_regular_file(status))
    return Error::InvalidArgument("cannot read '" + path +
                                  "': not a regular file (a device, FIFO or socket); give a file");
  const auto size = static_cast<int64_t>(std::filesystem::file_size(path, ec));
  if (!ec && size > limit)
    return Error::InvalidArgument("'" + path + "' is " + FormatNumber(size / 1048576.0, 4) +
                                  " MiB; input files are limited to " + FormatNumber(limit / 1048576.0, 4) +
                                  " MiB (set DLSIM_MAX_INPUT_MIB to raise the limit)");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::NotFound("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error::NotFound("cannot read '" + path + "'");
  NoteInputFile(path);
  return ss.str();
}

}  // namespace dlsim::io
