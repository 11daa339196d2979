#include "dlsim/serve/simulate.h"

#include "dlsim/serve/setup.h"

namespace dlsim::serve {

Result<ServeResult> Simulate(const ServeOptions& options, const catalog::Catalogs& catalogs,
                             report::Sink* sink) {
  ServeOptions o = options;
  if (o.engine_calibrations.empty()) o.engine_calibrations = catalogs.training.serving_engines;
  DLSIM_ASSIGN_OR_RETURN(auto env, MakeServeEnvironment(catalogs.compute, catalogs.network));
  DLSIM_ASSIGN_OR_RETURN(auto cost, MakeCostModel(o, *env));
  return Simulate(o, *cost, env->schedulers, env->routers, sink);
}

}  // namespace dlsim::serve
