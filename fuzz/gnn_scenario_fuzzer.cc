// Fuzz target: the GNN scenario reader (`dlsim gnn FILE`, io::ParseGnnScenario). On success it runs
// what `dlsim gnn` runs next — gnn::Simulate — when the graph is small (R-MAT scale <= 10, or an
// edge list of at most 20,000 edges and nodes), so that one input stays fast; every policy, cache,
// disk and topology option the input names is exercised on that graph.
#include <cstddef>
#include <cstdint>

#include "dlsim/gnn/simulate.h"
#include "dlsim/io/gnn_scenario.h"
#include "fuzz_env.h"

namespace {

bool Small(const dlsim::gnn::GnnOptions& o) {
  if (o.graph.rmat) return o.graph.rmat_options.scale <= 10 && o.graph.rmat_options.edge_factor <= 64;
  return o.graph.edges && o.graph.edges->src.size() <= 20000 && o.graph.edges->num_nodes <= 20000;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  static const io::GnnNames kNames = io::BuiltinGnnNames();
  const std::string path = fuzz::ScenarioPath();
  auto sc = io::ParseGnnScenario(fuzz::Text(data, size), path, fuzz::Catalogs().hardware, kNames,
                                 std::string(DLSIM_FUZZ_DATA_DIR) + "/scenarios");
  if (!sc.ok()) return 0;
  (void)io::SummarizeGnnOptions(sc->options);
  if (!Small(sc->options) || sc->options.hardware.machines > 16) return 0;
  auto r = gnn::Simulate(sc->options, fuzz::Catalogs(), nullptr);
  if (r.ok() && r->feasible && !(r->epoch > Duration::Zero()) && r->batches > 0)
    fuzz::Fail("a feasible GNN epoch of " + std::to_string(r->batches) + " batches took no time");
  if (!sc->compare.empty()) (void)gnn::Compare(sc->options, sc->compare, fuzz::Catalogs());
  return 0;
}
