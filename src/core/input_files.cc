#include "dlsim/core/input_files.h"

#include <filesystem>
#include <mutex>
#include <set>

namespace dlsim {
namespace {

struct InputFiles {
  std::mutex mu;
  std::set<std::string> paths;  // as read (a set: a file read twice is noted once)
};

InputFiles& Inputs() {
  static InputFiles* inputs = new InputFiles;  // never destroyed: writers may run during exit
  return *inputs;
}

}  // namespace

void NoteInputFile(const std::string& path) {
  if (path.empty()) return;
  InputFiles& in = Inputs();
  std::lock_guard lock(in.mu);
  in.paths.insert(path);
}

Status CheckNotAnInput(const std::string& flag, const std::string& path) {
  if (path.empty()) return Status::Ok();
  InputFiles& in = Inputs();
  std::lock_guard lock(in.mu);
  for (const std::string& input : in.paths) {
    std::error_code ec;
    if (std::filesystem::equivalent(path, input, ec))
      return Error::InvalidArgument(flag + " " + path + " is the input file " + input +
                                    ": writing it would overwrite the input; give another path");
  }
  return Status::Ok();
}

}  // namespace dlsim
