// The schedule selector and the static-kernel baseline (schedule_select.h).
#include "dlsim/gnn/kernels/schedule_select.h"

#include <algorithm>
#include <numeric>

namespace dlsim::gnn {
namespace {

Status CheckLoops(const std::vector<GraphLoop>& loops) {
  if (loops.empty()) return Error::InvalidArgument("graph operator: no loop");
  for (const GraphLoop& l : loops) {
    if (l.width != loops[0].width) return Error::InvalidArgument("graph operator: loops of different widths");
  }
  return Status::Ok();
}

// The candidates of the loops (one width), or why there are none.
Result<std::vector<Schedule>> Space(const std::vector<GraphLoop>& loops,
                                    const ScheduleFamilyRegistry& families) {
  DLSIM_RETURN_IF_ERROR(CheckLoops(loops));
  std::vector<Schedule> space = ScheduleSpace(families, loops[0].width);
  if (space.empty()) return Error::InvalidArgument("graph operator: the schedule space is empty");
  return space;
}

void Add(OpChoice& out, const Schedule& s, const LoopCost& c) {
  out.schedules.push_back(s);
  out.loops.push_back(c);
  out.time_ns += c.time_ns;
}

// The best of `space` for one loop: by increasing lower bound, stopping at the best cost.
Result<LoopCost> BestBranchAndBound(const GraphProfile& g, const GraphLoop& loop,
                                    const std::vector<Schedule>& space, const hw::GpuSpec& gpu,
                                    const KernelModelParams& p, int& evaluated, Schedule& chosen) {
  std::vector<double> bound(space.size());
  for (size_t i = 0; i < space.size(); ++i) bound[i] = LoopLowerBoundNs(g, loop, space[i], gpu, p);
  std::vector<size_t> order(space.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bound[a] < bound[b]; });
  LoopCost best;
  size_t best_index = space.size();
  for (size_t i : order) {
    if (best_index < space.size() && bound[i] > best.time_ns * (1 + 1e-9)) break;
    DLSIM_ASSIGN_OR_RETURN(LoopCost c, CostLoop(g, loop, space[i], gpu, p));
    ++evaluated;
    // Equal costs go to the earlier candidate of the space, as in the brute force.
    if (best_index == space.size() || c.time_ns < best.time_ns ||
        (c.time_ns == best.time_ns && i < best_index)) {
      best = c;
      best_index = i;
    }
  }
  chosen = space[best_index];
  return best;
}

}  // namespace

Result<OpChoice> SelectSchedules(const GraphProfile& g, const std::vector<GraphLoop>& loops,
                                 const ScheduleFamilyRegistry& families, const hw::GpuSpec& gpu,
                                 const KernelModelParams& p) {
  DLSIM_ASSIGN_OR_RETURN(const std::vector<Schedule> space, Space(loops, families));
  OpChoice out;
  for (const GraphLoop& l : loops) {
    Schedule s;
    DLSIM_ASSIGN_OR_RETURN(LoopCost c, BestBranchAndBound(g, l, space, gpu, p, out.evaluated, s));
    Add(out, s, c);
    out.candidates += static_cast<int>(space.size());
  }
  return out;
}

Result<OpChoice> SelectByBruteForce(const GraphProfile& g, const std::vector<GraphLoop>& loops,
                                    const ScheduleFamilyRegistry& families, const hw::GpuSpec& gpu,
                                    const KernelModelParams& p) {
  DLSIM_ASSIGN_OR_RETURN(const std::vector<Schedule> space, Space(loops, families));
  OpChoice out;
  for (const GraphLoop& l : loops) {
    LoopCost best;
    Schedule chosen;
    for (size_t i = 0; i < space.size(); ++i) {
      DLSIM_ASSIGN_OR_RETURN(LoopCost c, CostLoop(g, l, space[i], gpu, p));
      ++out.evaluated;
      if (i == 0 || c.time_ns < best.time_ns) best = c, chosen = space[i];
    }
    Add(out, chosen, best);
    out.candidates += static_cast<int>(space.size());
  }
  return out;
}

Result<OpChoice> CostStatic(const GraphProfile& g, const std::vector<GraphLoop>& loops,
                            const StaticKernelPolicy& policy, const hw::GpuSpec& gpu,
                            const KernelModelParams& p) {
  DLSIM_RETURN_IF_ERROR(CheckLoops(loops));
  OpChoice out;
  for (const GraphLoop& l : loops) {
    const Schedule s = policy.For(l);
    DLSIM_ASSIGN_OR_RETURN(LoopCost c, CostLoop(g, l, s, gpu, p));
    ++out.evaluated;
    ++out.candidates;
    Add(out, s, c);
  }
  return out;
}

}  // namespace dlsim::gnn
