#include "learned_cmd.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "dlsim/cost/learned_fit.h"
#include "dlsim/io/catalog_loader.h"

namespace dlsim::fit {

Result<std::string> FitLearnedModelText(const std::string& profiles_csv, const std::string& command) {
  std::ifstream in(profiles_csv);
  if (!in) return Error::NotFound("cannot read " + profiles_csv);
  std::stringstream text;
  text << in.rdbuf();
  DLSIM_ASSIGN_OR_RETURN(auto rows, cost::ParseGemmProfiles(text.str(), profiles_csv));
  DLSIM_ASSIGN_OR_RETURN(auto catalogs, io::LoadCatalogs({}));
  std::map<std::string, hw::GpuSpec> gpus;
  for (const auto& r : rows) {
    if (gpus.count(r.gpu)) continue;
    DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* g, catalogs.hardware.FindGpu(r.gpu));
    gpus[r.gpu] = *g;
  }
  const cost::LearnSet set = cost::MakeProfileSet(rows, gpus);
  const cost::LearnOptions options;
  DLSIM_ASSIGN_OR_RETURN(cost::TreeEnsemble model, cost::FitEnsemble(set, options));
  char line[256];
  std::snprintf(line, sizeof line,
                "# Rows: %zu (every row of the file); %d rounds, depth %d, eta %g, seed %llu, nthread 1.\n"
                "# Fit MAPE %.2f%% (tile model alone %.2f%%).\n",
                set.rows(), options.rounds, options.max_depth, options.eta,
                static_cast<unsigned long long>(options.seed), cost::LearnedMape(model, set),
                cost::LearnedMape(cost::TreeEnsemble{.features = cost::GemmFeatureNames()}, set));
  model.header =
      "# dlsim learned GEMM latency model: log(measured / tile-model time) by gradient-boosted trees\n"
      "# (XGBoost 1.7, reg:squarederror, exact splits; cost/learned_fit.h, docs/cost-model.md).\n"
      "# Data: " +
      profiles_csv +
      " (vidur A100/H100 GEMMs, microsoft/vidur @ 7d47513, MIT).\n"
      "# Fitted by: " +
      command + "\n" + line;
  return model.ToText();
}

}  // namespace dlsim::fit
