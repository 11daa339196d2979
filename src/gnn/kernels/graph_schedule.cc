// The schedule space of graph loops and the static DGL/PyG kernels (graph_schedule.h).
#include "dlsim/gnn/kernels/graph_schedule.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim::gnn {
namespace {

constexpr int kGrid[] = {1, 2, 4, 8, 16, 32, 64};

bool IsPowerOfTwo(int x) { return x >= 1 && (x & (x - 1)) == 0; }

int MaxTiles(Mapping m, int width) { return IsWarpPerUnit(m) ? (width + kWarpSize - 1) / kWarpSize : width; }

// Largest power of two <= x (x >= 1).
int FloorPow2(int x) {
  int p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

class Family final : public ScheduleFamily {
 public:
  explicit Family(Mapping m) : m_(m) {}
  std::vector<Schedule> Candidates(int width) const override {
    std::vector<Schedule> out;
    for (int g : kGrid) {
      for (int t : kGrid) {
        if (t > MaxTiles(m_, width)) continue;
        out.push_back({.mapping = m_, .group = g, .tiles = t});
        if (!IsVertexParallel(m_) && g > 1) out.push_back({m_, g, t, Reduction::kSegment});
      }
    }
    return out;
  }

 private:
  Mapping m_;
};

class DglKernels final : public StaticKernelPolicy {
 public:
  Schedule For(const GraphLoop& loop) const override {
    if (loop.to_dst != DstReduce::kNone) return {.mapping = Mapping::kWarpVertex};
    return {.mapping = Mapping::kWarpEdge};
  }
};

class PygKernels final : public StaticKernelPolicy {
 public:
  Schedule For(const GraphLoop& loop) const override {
    return {.mapping = Mapping::kThreadEdge, .tiles = FloorPow2(std::clamp(loop.width, 1, 64))};
  }
};

}  // namespace

bool IsVertexParallel(Mapping m) { return m == Mapping::kThreadVertex || m == Mapping::kWarpVertex; }
bool IsWarpPerUnit(Mapping m) { return m == Mapping::kWarpVertex || m == Mapping::kWarpEdge; }

std::string ScheduleName(const Schedule& s) {
  static constexpr const char* kNames[] = {"TV", "WV", "TE", "WE"};
  return fmt::format("{}_G{}_T{}{}", kNames[static_cast<int>(s.mapping)], s.group, s.tiles,
                     s.reduction == Reduction::kSegment ? "_SEG" : "");
}

Status CheckSchedule(const Schedule& s, int width) {
  const std::string name = ScheduleName(s);
  if (width < 1) return Error::InvalidArgument(fmt::format("width must be >= 1, found {}", width));
  if (s.group < 1) return Error::InvalidArgument(name + ": group must be >= 1");
  if (!IsPowerOfTwo(s.tiles)) return Error::InvalidArgument(name + ": tiles must be a power of two");
  if (s.tiles > MaxTiles(s.mapping, width)) {
    return Error::InvalidArgument(
        fmt::format("{}: tiles must be 1..{} for width {}", name, MaxTiles(s.mapping, width), width));
  }
  if (s.reduction == Reduction::kSegment && IsVertexParallel(s.mapping)) {
    return Error::InvalidArgument(name +
                                  ": a vertex-parallel unit owns its destinations; no segment reduction");
  }
  return Status::Ok();
}

void RegisterScheduleFamilies(ScheduleFamilyRegistry& reg) {
  const auto add = [&reg](const char* name, const char* what, Mapping m) {
    reg.RegisterBuiltin(name, what, [m] { return std::make_unique<Family>(m); });
  };
  add("t-vertex", "a thread per group of destination vertices and feature tile (TV; no atomics)",
      Mapping::kThreadVertex);
  add("w-vertex", "a warp per group of destination vertices and feature tile (WV; no atomics)",
      Mapping::kWarpVertex);
  add("t-edge", "a thread per group of edges and feature tile (TE; atomics or segment reduction)",
      Mapping::kThreadEdge);
  add("w-edge", "a warp per group of edges and feature tile (WE; atomics or segment reduction)",
      Mapping::kWarpEdge);
}

std::vector<Schedule> ScheduleSpace(const ScheduleFamilyRegistry& reg, int width) {
  std::vector<Schedule> out;
  for (const auto* e : reg.Entries()) {
    const auto family = e->factory();
    for (const Schedule& s : family->Candidates(width)) out.push_back(s);
  }
  return out;
}

void RegisterStaticKernels(StaticKernelRegistry& reg) {
  reg.RegisterBuiltin("dgl", "DGL 0.6: a warp per destination row for reductions, a warp per edge otherwise",
                      [] { return std::make_unique<DglKernels>(); });
  reg.RegisterBuiltin("pyg", "PyG gather-scatter: a thread per (edge, element), an atomic per element",
                      [] { return std::make_unique<PygKernels>(); });
}

}  // namespace dlsim::gnn
