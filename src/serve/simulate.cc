#include "dlsim/serve/simulate.h"

#include "dlsim/serve/prediction_interval.h"
#include "dlsim/serve/setup.h"

namespace dlsim::serve {

Result<ServeResult> Simulate(const ServeOptions& options, const catalog::Catalogs& catalogs,
                             report::Sink* sink) {
  if (options.engine_calibrations.empty() && !catalogs.training.serving_engines.empty()) {
    ServeOptions o = options;  // copied only to carry the catalogs' serving-engine calibrations
    o.engine_calibrations = catalogs.training.serving_engines;
    return Simulate(o, catalogs, sink);
  }
  DLSIM_ASSIGN_OR_RETURN(auto env, MakeServeEnvironment(catalogs.compute, catalogs.network));
  DLSIM_ASSIGN_OR_RETURN(auto cost, MakeCostModel(options, *env));
  DLSIM_ASSIGN_OR_RETURN(ServeResult r, Simulate(options, *cost, env->schedulers, env->routers, sink));
  AttachIntervals(options, catalogs.intervals, r);
  return r;
}

}  // namespace dlsim::serve
