// The serving module's entry point (the module template, docs/design/architecture.md): resolved
// options + catalogs -> one simulated deployment.
//
//   Result<catalog::Catalogs> cat = io::LoadCatalogs({});
//   Result<serve::ServeResult> r = serve::Simulate(options, *cat, /*sink=*/nullptr);
//   if (r.ok() && !r->feasible) std::cout << r->reason;
//
// Builds the environment (registries, embedded profiles) and the cost model per call; callers that
// simulate many times (capacity search, reproductions) build them once with setup.h instead.
// Thread-safe for distinct arguments.
#ifndef DLSIM_SERVE_SIMULATE_H_
#define DLSIM_SERVE_SIMULATE_H_

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/report/sink.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::serve {

// An infeasible configuration (the weights do not fit, ...) is a result with feasible = false
// and a reason. Errors: unknown scheduler or router names, an empty workload. `sink` (may be
// null) receives a span per iteration and KV counters; the caller calls Begin/Finish. The catalogs'
// serving-engine calibrations (a `--calibration` file's serving_engines) apply unless `options` carries its
// own.
Result<ServeResult> Simulate(const ServeOptions& options, const catalog::Catalogs& catalogs,
                             report::Sink* sink);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_SIMULATE_H_
