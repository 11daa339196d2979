// Ctrl-C (issue 35): SIGINT stops a long run cleanly — exit 130, "interrupted" on stderr, nothing on stdout —
// where it used to run to the end (or, for LAS without a restart bound, forever).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/sanitizers.h"

namespace {

struct Interrupted {
  int exit_code = -1;
  std::string out, err;
  double seconds = 0;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `dlsim args...`, sends SIGINT after `after_ms` (long after the binary installed its handler, even
// under the sanitizers), and waits (at most 60 s, then SIGKILL).
Interrupted InterruptAfter(const std::vector<std::string>& args, int after_ms) {
  const std::string dir = testing::TempDir();
  const std::string out = dir + "/dlsim_interrupt.out", err = dir + "/dlsim_interrupt.err";
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    freopen(out.c_str(), "w", stdout);
    freopen(err.c_str(), "w", stderr);
    std::vector<char*> argv{const_cast<char*>(DLSIM_BINARY)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(DLSIM_BINARY, argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
  kill(pid, SIGINT);
  Interrupted r;
  int status = 0;
  for (int waited = 0; waitpid(pid, &status, WNOHANG) == 0; waited += 10) {
    if (waited > 60000) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

// A serving run of two million requests: about 10 s in a Release build, minutes under the sanitizers.
std::string LongServeScenario() {
  const std::string path = testing::TempDir() + "/dlsim_long_serve.yaml";
  std::ofstream(path)
      << "model: {name: llama2-7b}\nhardware: {gpu: a100-sxm4-80gb}\n"
         "workload: {rate: 400.0, requests: 2000000, prompt_tokens: {distribution: fixed, value: 600}, "
         "output_tokens: {distribution: fixed, value: 200}}\n"
         "scheduler: {name: vllm}\n";
  return path;
}

TEST(Interrupt, SigintStopsAServingRunWithExit130AndNoResult) {
  const Interrupted r = InterruptAfter({"serve", LongServeScenario(), "--json"}, 1500);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(r.out, "");  // no half a result
  EXPECT_NE(r.err.find("interrupted: the run was stopped before it finished"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 30);
}

TEST(Interrupt, SigintStopsACrossValidationBetweenRefits) {
  DLSIM_SKIP_UNDER_SANITIZERS();
  const Interrupted r = InterruptAfter({"validate", "--cross-validate", "--threads", "1", "--quiet"}, 1500);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_LT(r.seconds, 30);
}

}  // namespace
