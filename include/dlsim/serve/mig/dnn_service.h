// A DNN service on one device (a whole GPU or one MIG instance): batch latency, throughput and
// p99 latency per batch size, and the best throughput under a p99 SLO.
//
//   hw::GpuSpec dev = hw::MigInstanceSpec(a100, *a100.FindMigProfile("3g.40gb"));
//   auto cm = cost::MakeRooflineComputeModel(dev, catalogs.compute);
//   serve::ServiceCapacity c = serve::ProfileDnnService(*resnet, dev, *cm, Millis(50), {}, nullptr);
//   c.best.throughput_rps;   // requests per second at the best batch meeting the SLO
//
// The device is priced as its own GpuSpec (hw/mig.h): an instance's share of the SMs (and so of
// the tensor-core peak), memory_slices/8 of the HBM bandwidth and of the L2, and its usable
// memory. The roofline compute model does not model L2 capacity, so the L2 split only travels
// in the spec (see docs/serving.md).
//
// Latency per batch: the sum of the model's kernels on the device (one stream, back to back),
// or the measured latency of a DnnProfileTable row for (model, device, batch) when one exists.
// Serving with dynamic batching up to batch b (Nexus, SOSP'19; Clipper): at full load a batch of
// b runs every t(b), so throughput = b / t(b), and a request that arrives just after a batch
// starts waits t(b) for it and t(b) for its own: p99 latency = 2 t(b) (the worst case, within 1%
// of the p99 of a saturated batcher). A batch fits when weights + activations <= usable memory
// x (1 - memory_margin). Pure functions; thread-safe.
#ifndef DLSIM_SERVE_MIG_DNN_SERVICE_H_
#define DLSIM_SERVE_MIG_DNN_SERVICE_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/serve/mig/dnn_model.h"

namespace dlsim::serve {

// Measured batch latencies that override the cost model: CSV with columns model, device
// (a GPU name, or "<gpu>/<mig profile>" as hw::MigInstanceSpec names an instance), batch,
// latency_ms.
class DnnProfileTable {
 public:
  // Errors name the file, line and column of a bad cell (batch 1..65,536, latency > 0 and
  // <= 1e6 ms) or a repeated (model, device, batch).
  static Result<DnnProfileTable> Parse(std::string_view csv_text, std::string file_name);
  std::optional<Duration> Find(std::string_view model, std::string_view device, int batch) const;
  // Adds or replaces one row (a latency predicted by a learned model, say). Precondition: latency > 0.
  void Set(std::string model, std::string device, int batch, Duration latency) {
    rows_[{std::move(model), std::move(device), batch}] = latency;
  }
  size_t size() const { return rows_.size(); }

 private:
  std::map<std::tuple<std::string, std::string, int>, Duration> rows_;
};

struct DnnServeOptions {
  std::vector<int> batches = {1,   2,   4,   8,    16,   32,  64,
                              128, 256, 512, 1024, 2048, 4096};  // batch sizes profiled
  double memory_margin = 0.1;                                    // fraction of the device memory kept free
};

struct ServicePoint {
  int batch = 0;
  Duration latency;  // one batch
  Duration p99;      // 2 x latency
  double throughput_rps = 0;
  bool fits = false;      // weights + activations fit the device
  bool measured = false;  // latency from the profile table
};

struct ServiceCapacity {
  bool feasible = false;  // some batch fits and meets the SLO
  std::string reason;     // why not, when infeasible
  ServicePoint best;      // highest throughput meeting the SLO
  std::vector<ServicePoint> points;
};

// Latency of one batch: the table's row when present, the compute model's kernel sum otherwise.
Duration DnnBatchLatency(const DnnModel& model, const hw::GpuSpec& device, const cost::ComputeModel& cm,
                         int batch, const DnnProfileTable* table);

// Every batch of `options.batches` on the device and the best under `slo_p99`.
ServiceCapacity ProfileDnnService(const DnnModel& model, const hw::GpuSpec& device,
                                  const cost::ComputeModel& cm, Duration slo_p99,
                                  const DnnServeOptions& options, const DnnProfileTable* table);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_MIG_DNN_SERVICE_H_
