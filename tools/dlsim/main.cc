// dlsim's main(): the SIGINT handler, then the command line (cli.h).
#include <csignal>

#include "cli.h"
#include "dlsim/core/cancel.h"

// The first Ctrl-C asks the run to stop (core/cancel.h: it ends with exit 130 and nothing on stdout); a
// second one, if the run does not poll, ends the process as SIGINT always did.
extern "C" void OnInterrupt(int) {
  dlsim::RequestCancel();
  std::signal(SIGINT, SIG_DFL);
}

int main(int argc, char** argv) {
  std::signal(SIGINT, OnInterrupt);
  return dlsim::cli::Run(argc, argv);
}
