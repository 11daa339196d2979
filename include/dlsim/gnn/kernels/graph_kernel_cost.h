// A GPU cost model of one graph loop under one schedule, on a real graph's degree distribution.
//
//   gnn::GraphProfile prof = gnn::ProfileGraph(graph);          // once per graph
//   auto c = gnn::CostLoop(prof, loop, schedule, gpu, {});       // Result<gnn::LoopCost>
//   c->time_ns; c->bound;                                        // e.g. 41.2, "latency"
//
// The loop's work is cut into units (schedule: `group` destination vertices with their in-edges,
// or `group` consecutive destination-sorted edges), each run by `tiles` threads or warps. A unit's
// steps are its edges times the elements one thread (or warp) handles per edge, ceil(width /
// tiles) (or ceil(width / (32 tiles))). Units fill 256-thread blocks; a block lasts as long as its
// slowest unit (steps x step_latency_ns: one dependent gather iteration); blocks go in order to the
// first free slot of sm_count x (max_threads_per_sm / 256) slots (occupancy from the catalog).
// That list schedule is the latency term, and where the real degree distribution enters: a hub
// vertex makes its block, and so the kernel, long. The loop takes
//
//   time = kernels x launch_ns + max(latency, memory, lsu, atomics, contention)
//
//   memory     = max(DRAM bytes / HBM bandwidth, all bytes / (l2_bandwidth_ratio x HBM bandwidth));
//                gathered rows are 32-byte sectors; a gathered tensor that fits l2_usable_fraction
//                of L2 is read from DRAM once, a larger one misses in proportion
//   lsu        = sector requests / (sm_count x l1_sectors_per_ns_per_sm): adjacent lanes reading
//                adjacent elements share sectors (coalescing); one lane per row does not
//   atomics    = atomic transactions / (sm_count x atomics_per_ns_per_sm), x max_atomic_factor for max;
//                a transaction is one sector of adjacent elements a unit-step reduces into one row
//   contention = the most atomics on one address x same_address_atomic_ns (they serialise)
//
// Every constant is an assumption of ours with its reasoning in docs/gnn.md ("Graph operators"), not
// a measurement; the bandwidths, SM counts, L2 size and threads per SM come from the catalog.
// Pure functions; thread-safe.
#ifndef DLSIM_GNN_KERNELS_GRAPH_KERNEL_COST_H_
#define DLSIM_GNN_KERNELS_GRAPH_KERNEL_COST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"
#include "dlsim/gnn/kernels/graph_op.h"
#include "dlsim/gnn/kernels/graph_schedule.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::gnn {

struct KernelModelParams {
  double step_latency_ns = 100;         // a warp's dependent gather iteration (~140 cycles at 1.4 GHz)
  double l1_sectors_per_ns_per_sm = 5;  // L1 returns 4 sectors (128 B) per clock at ~1.4 GHz
  double l2_bandwidth_ratio = 3;        // L2 / DRAM bandwidth
  double l2_usable_fraction = 0.5;      // the part of L2 that keeps a gathered tensor
  double atomics_per_ns_per_sm = 1;     // L2 atomic throughput, per SM of the GPU
  double same_address_atomic_ns = 1;    // atomics on one address serialise at the L2 slice
  double max_atomic_factor = 3;         // a float max is a compare-and-swap loop
  double launch_ns = 3000;              // one kernel launch
};

// The destination-sorted view of a graph the model reads: CSC offsets and summary counts.
struct GraphProfile {
  int64_t nodes = 0, edges = 0;
  std::vector<uint64_t> offsets;  // in-edges of v: offsets[v] .. offsets[v + 1]
  int64_t max_in_degree = 0;
  int64_t nonempty = 0;  // destinations with at least one in-edge
  // For edge groups of 1, 2, 4, ..., 64 consecutive edges: the (group, destination) runs and the
  // most runs on one destination (what segment reductions and atomics cost), counted once here.
  struct Runs {
    double runs = 0;
    int64_t most = 0;
  };
  std::vector<Runs> runs_by_log2_group;
};
GraphProfile ProfileGraph(const Graph& g);

struct LoopCost {
  std::string loop;
  std::string schedule;
  double time_ns = 0;
  double latency_ns = 0, memory_ns = 0, lsu_ns = 0, atomics_ns = 0, contention_ns = 0, launch_ns = 0;
  std::string bound;  // the largest term: latency, memory, lsu, atomics or contention
  int kernels = 0;    // launches: the loop, plus a zero fill and a mean pass when atomics write
  int64_t units = 0, blocks = 0;
  double imbalance = 0;  // max / mean steps over the units that have work
  double occupancy = 0;  // blocks / block slots, capped at 1 (the first wave's fill)
  double dram_bytes = 0;
  double atomics = 0;  // atomic transactions (sectors)
};

// Errors: kInvalidArgument from CheckSchedule; kInvalidArgument for a GPU without SMs or
// bandwidth, or a parameter that is not positive; the profile of an empty graph.
Result<LoopCost> CostLoop(const GraphProfile& g, const GraphLoop& loop, const Schedule& s,
                          const hw::GpuSpec& gpu, const KernelModelParams& p);

// A lower bound of CostLoop(...).time_ns that needs no pass over the vertices (the throughput
// terms and the largest unit); the selector prunes with it. Same preconditions as CostLoop
// (callers check the schedule first).
double LoopLowerBoundNs(const GraphProfile& g, const GraphLoop& loop, const Schedule& s,
                        const hw::GpuSpec& gpu, const KernelModelParams& p);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_KERNELS_GRAPH_KERNEL_COST_H_
