// Features of one DNN serving configuration (model, device, batch) for a learned latency model
// (ElasticBatch's configuration model): what a profiler knows before it runs the configuration.
//
//   std::vector<double> x = serve::DnnConfigFeatures(*bert, mig_3g, /*batch=*/16);
//   Duration t = serve::PredictDnnLatency(ensemble, *bert, mig_3g, 16);   // exp(model(x)) seconds
//
// Features (names: DnnConfigFeatureNames()): log2 batch; log10 forward FLOPs and weight and
// activation bytes of one request; the device's SMs, HBM GB/s and memory GiB. Labels are
// log(latency seconds). Pure functions.
#ifndef DLSIM_SERVE_MIG_DNN_CONFIG_FEATURES_H_
#define DLSIM_SERVE_MIG_DNN_CONFIG_FEATURES_H_

#include <string>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/cost/tree_ensemble.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/serve/mig/dnn_model.h"

namespace dlsim::serve {

std::vector<std::string> DnnConfigFeatureNames();
std::vector<double> DnnConfigFeatures(const DnnModel& model, const hw::GpuSpec& device, int batch);
// exp(ensemble(features)) seconds. Precondition: the ensemble was fitted on DnnConfigFeatures.
Duration PredictDnnLatency(const cost::TreeEnsemble& ensemble, const DnnModel& model,
                           const hw::GpuSpec& device, int batch);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_MIG_DNN_CONFIG_FEATURES_H_
