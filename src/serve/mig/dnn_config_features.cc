#include "dlsim/serve/mig/dnn_config_features.h"

#include <cmath>

namespace dlsim::serve {

std::vector<std::string> DnnConfigFeatureNames() {
  return {"log2_batch",
          "log10_flops_per_request",
          "log10_weight_bytes",
          "log10_activation_bytes_per_request",
          "sms",
          "hbm_gbps",
          "memory_gib"};
}

std::vector<double> DnnConfigFeatures(const DnnModel& model, const hw::GpuSpec& device, int batch) {
  return {std::log2(static_cast<double>(batch)),
          std::log10(ForwardFlops(model, 1).value()),
          std::log10(model.WeightBytes().value()),
          std::log10(model.ActivationBytes(1).value()),
          static_cast<double>(device.sm_count),
          device.hbm_bandwidth.value() / 1e9,
          device.hbm_capacity.ToGiB()};
}

Duration PredictDnnLatency(const cost::TreeEnsemble& ensemble, const DnnModel& model,
                           const hw::GpuSpec& device, int batch) {
  return Seconds(std::exp(ensemble.Predict(DnnConfigFeatures(model, device, batch))));
}

}  // namespace dlsim::serve
