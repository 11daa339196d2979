// The dlsim command line: argument parsing and printing only, no model logic.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <string>

int main(int argc, char** argv) {
  CLI::App app{"dlsim: a data-aware simulator and planner for deep-learning training and serving"};
  app.require_subcommand(1);
  auto* version = app.add_subcommand("version", "Print the dlsim version");
  version->callback([] { fmt::print("dlsim {}\n", DLSIM_VERSION); });
  for (const char* cmd : {"train", "serve", "plan", "validate"}) {
    auto* sub = app.add_subcommand(cmd, std::string("(not yet available) ") + cmd);
    sub->allow_extras();
    sub->callback([cmd] {
      fmt::print(stderr, "dlsim {}: not implemented yet in this build\n", cmd);
      throw CLI::RuntimeError(2);
    });
  }
  CLI11_PARSE(app, argc, argv);
  return 0;
}
