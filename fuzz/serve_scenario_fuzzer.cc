// Fuzz target: the serving scenario reader (`dlsim serve FILE`, io::ParseServeScenario).
//
// On success it does what `dlsim serve --check` does (SummarizeServeOptions) and then the next,
// cheap step of `dlsim serve`: building the iteration cost model (serve::MakeCostModel). The
// simulation itself is not run (its length is the scenario's to choose).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "dlsim/io/data_section.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/serve/setup.h"
#include "fuzz_env.h"

namespace {

const dlsim::serve::ServeEnvironment& Environment() {
  static const std::unique_ptr<dlsim::serve::ServeEnvironment> kEnv = [] {
    auto env =
        dlsim::serve::MakeServeEnvironment(dlsim::fuzz::Catalogs().compute, dlsim::fuzz::Catalogs().network);
    if (!env.ok()) dlsim::fuzz::Fail("serving environment: " + env.error().message);
    return std::move(env).value();
  }();
  return *kEnv;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const catalog::Catalogs& cat = fuzz::Catalogs();
  const serve::ServeEnvironment& env = Environment();
  const io::ServeNames names{env.schedulers.Names(), env.routers.Names()};
  const std::string path = fuzz::ScenarioPath();
  auto options = io::ParseServeScenario(fuzz::Text(data, size), path, cat.hardware, cat.models, names,
                                        io::FolderOf(path));
  if (!options.ok()) return 0;
  (void)io::SummarizeServeOptions(*options);
  (void)serve::MakeCostModel(*options, env);
  return 0;
}
