// One training iteration of a wide-and-deep model on a GPU cluster, as a sum and overlap of four kinds
// of work per GPU: kernel launches, memory-bound embedding traffic, compute-bound dense layers, and
// communication (PICASSO, arXiv 2204.04903). Training systems are policies behind a registry
// ("tf-ps", "gpu-centric", "picasso"; `dlsim list recsys-system`), each a set of the three optimisations
// (packing, interleaving, caching) over one of two architectures:
//   parameter server (TF-PS): embeddings and dense weights on CPU servers; workers pull the rows they
//     look up and push their gradients; every table is its own variable (one RPC round each);
//   GPU-centric: tables sharded over the GPUs, looked-up rows exchanged by all-to-all (forward and
//     backward), dense weights replicated and all-reduced.
// Packing merges tables of equal dimension (one lookup kernel and one exchange per group instead of per
// table) and fuses each group's interaction kernels; interleaving splits the batch into micro-batches
// and pipelines the communication- and memory-bound part with the compute-bound part; caching serves the
// measured hit ratio of lookups from a GPU replica of the hot rows (no exchange for them).
//
//   recsys::SystemRegistry reg("recsys-system");
//   recsys::RegisterSystems(reg);
//   recsys::IterationBreakdown b = (*reg.Create("picasso"))->Price(model, cluster, knobs);
#ifndef DLSIM_STUDIES_RECSYS_ITERATION_H_
#define DLSIM_STUDIES_RECSYS_ITERATION_H_

#include <memory>
#include <string>

#include "dlsim/core/registry.h"
#include "dlsim/core/units.h"
#include "dlsim/net/collective.h"
#include "dlsim/studies/recsys/workload.h"

namespace dlsim::recsys {

// The cluster and the per-op constants (the repro takes them from the hardware catalog and
// data/recsys/constants.csv, each with its source).
struct RecCluster {
  int nodes = 1, gpus_per_node = 8;
  int batch_per_gpu = 4096;
  FlopsPerSecond gpu_flops;                           // dense fp32 (or tf32) peak
  double mlp_efficiency = 0.5;                        // achieved / peak on the dense layers
  BytesPerSecond hbm_bw;                              // per GPU
  double gather_efficiency = 0.3;                     // achieved / peak HBM bandwidth of random row gathers
  BytesPerSecond intra_bw;                            // per GPU (NVLink or PCIe)
  BytesPerSecond nic_bw;                              // per machine
  Duration launch;                                    // per GPU kernel (framework op dispatch included)
  Duration collective_latency;                        // per collective call
  int ps_servers = 4;                                 // TF-PS: CPU parameter servers, one NIC each
  Duration rpc;                                       // TF-PS: one pull or push of one variable
  const net::CollectiveModel* collectives = nullptr;  // borrowed, not null: all-to-all and all-reduce
  int gpus() const { return nodes * gpus_per_node; }
};

// The three optimisations (and the cache hit ratio the caching one uses).
struct Knobs {
  bool packing = false;
  int micro_batches = 1;  // interleaving when > 1
  double hit_ratio = 0;   // share of lookups served by the GPU cache (caching when > 0)
};

struct IterationBreakdown {
  Duration launch, memory, compute, comm;  // totals of each kind of work per GPU
  Duration iteration;                      // after overlap
  long long kernels = 0;                   // GPU kernels per iteration
  long long exchanges = 0;                 // collective or RPC calls per iteration
  double samples_per_second = 0;           // whole cluster
};

class TrainingSystem {
 public:
  virtual ~TrainingSystem() = default;
  // `knobs` are the caller's (for ablations); a registered system applies its own on top.
  virtual IterationBreakdown Price(const RecModel& m, const RecCluster& c, Knobs knobs) const = 0;
};

using SystemRegistry = Registry<TrainingSystem>;
void RegisterSystems(SystemRegistry& reg);

// The architectures, for any knobs (the registered systems are these with fixed knobs).
IterationBreakdown PriceParameterServer(const RecModel& m, const RecCluster& c, const Knobs& k);
IterationBreakdown PriceGpuCentric(const RecModel& m, const RecCluster& c, const Knobs& k);

}  // namespace dlsim::recsys

#endif  // DLSIM_STUDIES_RECSYS_ITERATION_H_
