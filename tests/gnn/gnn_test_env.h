// Shared set-up of the gnn scenario and simulation tests: catalogs, policy names, scenario text.
#ifndef DLSIM_TESTS_GNN_GNN_TEST_ENV_H_
#define DLSIM_TESTS_GNN_GNN_TEST_ENV_H_

#include <string>

#include "dlsim/gnn/feature_cache.h"
#include "dlsim/gnn/partition.h"
#include "dlsim/gnn/sampler.h"
#include "dlsim/gnn/seed_order.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/gnn_scenario.h"

namespace dlsim::gnn::testing {

inline const catalog::Catalogs& Catalogs() {
  static const catalog::Catalogs* c = new catalog::Catalogs(std::move(io::LoadCatalogs({}).value()));
  return *c;
}

inline io::GnnNames Names() { return io::BuiltinGnnNames(); }

inline std::string TestData(const std::string& name) {
  return std::string(DLSIM_TEST_DATA_DIR) + "/gnn/" + name;
}

// A scenario on `graph` (a flow mapping) with `extra` lines appended inside the gnn: section.
inline std::string Scenario(const std::string& graph, const std::string& extra = "") {
  return "name: t\ngnn:\n  graph: " + graph + "\n" + extra;
}

inline Result<io::GnnScenario> Parse(const std::string& text) {
  return io::ParseGnnScenario(text, "s.yaml", Catalogs().hardware, Names(), TestData(""));
}

}  // namespace dlsim::gnn::testing

#endif  // DLSIM_TESTS_GNN_GNN_TEST_ENV_H_
