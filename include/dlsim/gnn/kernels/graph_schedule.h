// Schedules of a graph loop on a GPU (uGrapher's schedule space) and the static kernels of
// DGL/PyG that use one fixed schedule per operator.
//
//   gnn::Schedule s{.mapping = gnn::Mapping::kThreadEdge, .group = 8, .tiles = 16};
//   ScheduleName(s);                             // "TE_G8_T16" (uGrapher's naming)
//   auto space = gnn::ScheduleSpace(families, 16);   // every candidate for width 16
//
// A schedule maps the loop's work to threads:
//   - mapping: vertex-parallel (a unit = `group` consecutive destination vertices and all their
//     in-edges) or edge-parallel (a unit = `group` consecutive edges, sorted by destination); each
//     unit is run by one thread (T*) or one warp (W*) per feature tile;
//   - tiles: the row is split over `tiles` threads (T*: element i goes to tile i mod tiles, so the
//     tiles of a unit are adjacent lanes) or `tiles` warps (W*: lanes take 32 adjacent elements);
//   - reduction (edge-parallel loops into a destination): kAtomic issues one atomic per edge and
//     element; kSegment accumulates a run of edges with the same destination in registers and
//     issues one atomic per run (vertex-parallel units own their destinations: no atomics).
// Values and pure functions; thread-safe.
#ifndef DLSIM_GNN_KERNELS_GRAPH_SCHEDULE_H_
#define DLSIM_GNN_KERNELS_GRAPH_SCHEDULE_H_

#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/gnn/kernels/graph_op.h"

namespace dlsim::gnn {

enum class Mapping { kThreadVertex, kWarpVertex, kThreadEdge, kWarpEdge };
enum class Reduction { kAtomic, kSegment };

inline constexpr int kWarpSize = 32;
inline constexpr int kBlockThreads = 256;  // threads per block (uGrapher's CTA_SIZE)

struct Schedule {
  Mapping mapping = Mapping::kWarpVertex;
  int group = 1;  // vertices or edges per unit, >= 1
  int tiles = 1;  // feature tiles, a power of two >= 1
  Reduction reduction = Reduction::kAtomic;
  bool operator==(const Schedule&) const = default;
};

bool IsVertexParallel(Mapping m);
bool IsWarpPerUnit(Mapping m);
// "TV_G4_T8", "WE_G2_T1", "TE_G16_T32_SEG".
std::string ScheduleName(const Schedule& s);
// Errors (kInvalidArgument): group < 1, tiles not a power of two, tiles above the width (thread
// mappings) or above ceil(width / 32) (warp mappings), a segment reduction on a vertex mapping.
Status CheckSchedule(const Schedule& s, int width);

// A family of schedules (one mapping): its candidates for a loop of `width` elements.
class ScheduleFamily {
 public:
  virtual ~ScheduleFamily() = default;
  virtual std::vector<Schedule> Candidates(int width) const = 0;
};
using ScheduleFamilyRegistry = Registry<ScheduleFamily>;

// t-vertex, w-vertex, t-edge, w-edge: groups and tiles in {1, 2, 4, ..., 64} that CheckSchedule
// accepts (uGrapher's grid, 4 x 7 x 7 before clamping); the edge families add the segment
// reduction for groups > 1.
void RegisterScheduleFamilies(ScheduleFamilyRegistry& reg);
// Every candidate of every family in `reg` for `width`, in family-name then generation order.
std::vector<Schedule> ScheduleSpace(const ScheduleFamilyRegistry& reg, int width);

// A framework's fixed kernel choice: the schedule it runs a loop with, whatever the graph.
class StaticKernelPolicy {
 public:
  virtual ~StaticKernelPolicy() = default;
  virtual Schedule For(const GraphLoop& loop) const = 0;
};
using StaticKernelRegistry = Registry<StaticKernelPolicy>;

// dgl (DGL 0.6: SpMM and destination reductions run a warp per destination row, lanes over the
// features, WV_G1_T1; edge-wise loops a warp per edge, WE_G1_T1) and pyg (PyTorch Geometric's
// gather-scatter: a thread per (edge, element) with an atomic per element, TE_G1_T<width>,
// tiles capped at 64).
void RegisterStaticKernels(StaticKernelRegistry& reg);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_KERNELS_GRAPH_SCHEDULE_H_
