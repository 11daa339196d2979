// Runs the dlsim binary (DLSIM_BINARY, set by tests/CMakeLists.txt) and captures its output.
#ifndef DLSIM_TESTS_COMMON_RUN_DLSIM_H_
#define DLSIM_TESTS_COMMON_RUN_DLSIM_H_

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace dlsim::testing {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout (and stderr when merge_stderr)
};

// Runs a shell command line (as given) and captures its stdout.
inline Outcome RunCommand(const std::string& command) {
  Outcome out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.output.append(buf.data(), n);
  const int status = pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

inline Outcome RunDlsim(const std::string& args, bool merge_stderr = true) {
  return RunCommand(std::string(DLSIM_BINARY) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace dlsim::testing

#endif  // DLSIM_TESTS_COMMON_RUN_DLSIM_H_
