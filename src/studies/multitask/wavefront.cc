#include "dlsim/studies/multitask/wavefront.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "dlsim/net/collective.h"
#include "dlsim/studies/multitask/allocator.h"

namespace dlsim::multitask {
namespace {

Status CheckInputs(const SchedulerInputs& in) {
  if (!in.workload || !in.graph || !in.curves) return Error::InvalidArgument("scheduler: missing inputs");
  if (in.budget < 1) return Error::InvalidArgument("scheduler: the device budget must be >= 1");
  if (in.curves->size() != in.graph->ops.size())
    return Error::InvalidArgument("scheduler: one scaling curve per MetaOp needed");
  for (size_t i = 0; i < in.curves->size(); ++i) {
    const ScalingCurve& c = (*in.curves)[i];
    if (c.max_devices() < in.budget)
      return Error::InvalidArgument("scheduler: the curve of " + in.graph->ops[i].name + " stops at " +
                                    std::to_string(c.max_devices()) + " devices, below the budget");
    if (!c.at(in.budget).feasible)
      return Error::Infeasible("scheduler: MetaOp " + in.graph->ops[i].name + " cannot run on " +
                               std::to_string(in.budget) + " devices");
  }
  return Status::Ok();
}

// Where each MetaOp's latest output lives (count 0: not yet run).
using Locations = std::vector<DeviceRange>;

// Nodes that hold layers of each module so far (its gradients are reduced over them).
struct ModuleNodes {
  int g = 1;                              // devices per node
  std::vector<std::vector<char>> nodes;   // [module][node]
  ModuleNodes(const SchedulerInputs& in)  // NOLINT
      : g(in.ctx ? std::max(1, in.ctx->gpus_per_node) : in.budget),
        nodes(in.workload->modules.size(),
              std::vector<char>(static_cast<size_t>((in.budget + g - 1) / g), 0)) {}
  // Nodes of `r` that do not hold module m yet.
  int NewNodes(int m, DeviceRange r) const {
    int n = 0;
    for (int node = r.begin / g; node <= (r.end() - 1) / g; ++node) n += nodes[m][node] ? 0 : 1;
    return n;
  }
  void Add(int m, DeviceRange r) {
    for (int node = r.begin / g; node <= (r.end() - 1) / g; ++node) nodes[m][node] = 1;
  }
};

// The movement of one slice's inputs onto `dst`.
Duration SliceTransfer(const SchedulerInputs& in, const Locations& loc, const Slice& s, DeviceRange dst,
                       double* moved) {
  const MetaOp& op = in.graph->ops[s.op];
  Duration t;
  if (s.first_layer > 0) {
    t += MoveTime(in.ctx, loc[s.op], dst, OutputBytes(op, *in.workload), moved);
  } else {
    for (int p : op.preds)
      t += MoveTime(in.ctx, loc[p], dst, OutputBytes(in.graph->ops[p], *in.workload), moved);
  }
  return t;
}

// Lays the slices out in `order` from `start`; returns the wave's transfer and sets the ranges.
Duration LayOut(const SchedulerInputs& in, const Locations& loc, std::vector<Slice>& slices,
                const std::vector<int>& order, int start, double* moved) {
  Duration worst;
  *moved = 0;
  int at = start;
  for (int i : order) {
    Slice& s = slices[i];
    s.devices = {at, s.config.devices()};
    at += s.config.devices();
    worst = std::max(worst, SliceTransfer(in, loc, s, s.devices, moved));
  }
  return worst;
}

// Nodes a range spans beyond the fewest its size needs.
int ExcessNodes(DeviceRange r, int g) {
  const int spanned = (r.end() - 1) / g - r.begin / g + 1;
  return spanned - (r.count + g - 1) / g;
}

// Node-aware packing: the slices in `order`, each at the free start aligned to its TP size that spans
// the fewest nodes, then adds the fewest nodes to those holding its module, then moves its inputs
// fastest, then comes first. False when fragmentation leaves a slice no hole (the contiguous layouts
// always fit).
bool Pack(const SchedulerInputs& in, const Locations& loc, ModuleNodes held, std::vector<Slice>& slices,
          const std::vector<int>& order, Duration* worst, double* moved) {
  const int g = held.g;
  std::vector<int> taken(static_cast<size_t>(in.budget) + 1, 0);  // prefix sums of used devices
  std::vector<char> used(static_cast<size_t>(in.budget), 0);
  *worst = Duration::Zero();
  *moved = 0;
  for (int i : order) {
    Slice& s = slices[i];
    const int count = s.config.devices(), step = std::max(1, s.config.tp);
    const int module = in.graph->ops[s.op].module;
    int best = -1, best_excess = 0, best_new = 0;
    Duration best_time;
    for (int start = 0; start + count <= in.budget; start += step) {
      if (taken[start + count] != taken[start]) continue;
      const DeviceRange r{start, count};
      const int excess = ExcessNodes(r, g), fresh = held.NewNodes(module, r);
      double ignored = 0;
      const Duration t = SliceTransfer(in, loc, s, r, &ignored);
      if (best < 0 || std::tie(excess, fresh, t) < std::tie(best_excess, best_new, best_time)) {
        best = start;
        best_excess = excess;
        best_new = fresh;
        best_time = t;
      }
    }
    if (best < 0) return false;
    s.devices = {best, count};
    held.Add(module, s.devices);
    for (int d = best; d < best + count; ++d) used[d] = 1;
    for (int d = 0; d < in.budget; ++d) taken[d + 1] = taken[d] + used[d];
    *worst = std::max(*worst, SliceTransfer(in, loc, s, s.devices, moved));
  }
  return true;
}

// The best placement seen so far: fewest nodes spanned beyond need, then fewest nodes added to those
// holding each slice's module, then shortest transfer, then fewest bytes moved; the first wins ties.
struct Choice {
  int excess = 0, fresh = 0;
  Duration transfer = Duration::Max();
  double moved = 0;
  std::vector<Slice> slices;

  void Consider(const SchedulerInputs& in, const ModuleNodes& held, const std::vector<Slice>& placed,
                Duration t, double bytes) {
    int e = 0, f = 0;
    ModuleNodes after = held;
    for (const Slice& s : placed) {
      const int module = in.graph->ops[s.op].module;
      e += ExcessNodes(s.devices, held.g);
      f += after.NewNodes(module, s.devices);
      after.Add(module, s.devices);
    }
    if (transfer == Duration::Max() || std::tie(e, f, t, bytes) < std::tie(excess, fresh, transfer, moved))
      *this = {e, f, t, bytes, placed};
  }
};

// Slice indices sorted by `key` (smallest first).
template <typename Key>
std::vector<int> SortedBy(size_t k, Key key) {
  std::vector<int> order(k);
  for (size_t i = 0; i < k; ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  return order;
}

// The packing candidates: largest slice first; slices that continue an op of the last wave first (so
// they can stay where their activations are), then the largest; the slices of the module taking the
// most devices first, together (so a module's slices can share nodes).
void PackingCandidates(const SchedulerInputs& in, const Locations& loc, const ModuleNodes& held,
                       std::vector<Slice>& slices, Choice& best) {
  std::vector<int> group(in.workload->modules.size(), 0);
  for (const Slice& s : slices) group[in.graph->ops[s.op].module] += s.config.devices();
  enum Rule { kLargest, kContinuing, kByModule };
  for (Rule rule : {kLargest, kContinuing, kByModule}) {
    const std::vector<int> order = SortedBy(slices.size(), [&](int i) {
      const Slice& s = slices[i];
      const int m = in.graph->ops[s.op].module;
      const int first = rule == kContinuing ? (s.first_layer > 0 ? 0 : 1) : rule == kByModule ? -group[m] : 0;
      return std::make_tuple(first, rule == kByModule ? m : 0, -s.config.devices(), -s.config.tp, s.op);
    });
    Duration t;
    double moved = 0;
    if (Pack(in, loc, held, slices, order, &t, &moved)) best.Consider(in, held, slices, t, moved);
  }
}

// The contiguous candidates, by TP size (largest first) then: id; (kMinMovement) where each slice's
// inputs are, reversed id; from device 0 and (kMinMovement) ending near the top.
void ContiguousCandidates(const SchedulerInputs& in, const Locations& loc, const ModuleNodes& held,
                          std::vector<Slice>& slices, Choice& best) {
  auto by = [&](auto key) {
    return SortedBy(slices.size(), [&](int i) { return std::make_pair(-slices[i].config.tp, key(i)); });
  };
  // Where a slice's inputs are: its own previous range, else its first placed predecessor's.
  auto home = [&](int i) {
    const Slice& s = slices[i];
    if (s.first_layer > 0) return loc[s.op].begin;
    int at = in.budget;
    for (int p : in.graph->ops[s.op].preds)
      if (loc[p].count > 0) at = std::min(at, loc[p].begin);
    return at;
  };
  std::vector<std::vector<int>> orders = {by([&](int i) { return slices[i].op; })};
  std::vector<int> starts = {0};
  if (in.placement == Placement::kMinMovement) {
    orders.push_back(by(home));
    orders.push_back(by([&](int i) { return -slices[i].op; }));
    int used = 0, tp_max = 1;
    for (const Slice& s : slices) {
      used += s.config.devices();
      tp_max = std::max(tp_max, s.config.tp);
    }
    const int right = (in.budget - used) / tp_max * tp_max;  // aligned start of a layout ending near the top
    if (right > 0) starts.push_back(right);
  }
  for (int start : starts) {
    for (const std::vector<int>& order : orders) {
      double moved = 0;
      const Duration t = LayOut(in, loc, slices, order, start, &moved);
      best.Consider(in, held, slices, t, moved);
    }
  }
}

// Places a wave's slices (see the file comment) and sets its transfer and moved bytes.
void Place(const SchedulerInputs& in, const Locations& loc, const ModuleNodes& held, Wave& w) {
  Choice best;
  if (in.placement == Placement::kMinMovement) PackingCandidates(in, loc, held, w.slices, best);
  ContiguousCandidates(in, loc, held, w.slices, best);
  w.slices = std::move(best.slices);
  w.transfer = best.transfer;
  w.moved = Bytes(best.moved);
}

// Closes a placed wave: pass times, where its ops' outputs now live, which nodes hold which modules.
void Finish(const MetaGraph& g, Wave& w, Locations& loc, ModuleNodes& held) {
  for (const Slice& s : w.slices) {
    w.fwd = std::max(w.fwd, s.fwd);
    w.bwd = std::max(w.bwd, s.bwd);
    loc[s.op] = s.devices;
    held.Add(g.ops[s.op].module, s.devices);
  }
}

Slice MakeSlice(const ScalingCurve& c, int op, int first, int layers, int n) {
  const ScalePoint& p = c.at(n);
  Slice s;
  s.op = op;
  s.first_layer = first;
  s.layers = layers;
  s.config = p.config;
  s.fwd = p.fwd * int64_t{layers};
  s.bwd = p.bwd * int64_t{layers};
  return s;
}

// How many layers each ready op runs in the wave: the wave is cut when the first of them finishes (D,
// the smallest allocated time), and every other op runs the whole number of layers nearest D (none
// when one of its layers is more than twice as long: it sits the wave out).
std::vector<int> WaveLayers(const MetaGraph& g, const std::vector<ScalingCurve>& curves,
                            const std::vector<int>& ready, const std::vector<int>& next,
                            const Allocation& a) {
  const Duration end = *std::min_element(a.time.begin(), a.time.end());
  std::vector<int> layers(ready.size());
  for (size_t j = 0; j < ready.size(); ++j) {
    const int i = ready[j];
    const Duration per_layer = curves[i].at(a.devices[j]).total();
    layers[j] = static_cast<int>(std::min<int64_t>(std::llround(end / per_layer), g.ops[i].size() - next[i]));
  }
  return layers;
}

// Bottom levels on the whole budget: an op's time plus its longest path to a sink (ops are in
// topological order).
std::vector<Duration> BottomLevels(const SchedulerInputs& in) {
  const MetaGraph& g = *in.graph;
  std::vector<Duration> level(g.ops.size());
  for (int i = static_cast<int>(g.ops.size()) - 1; i >= 0; --i) {
    Duration after;
    for (int s : g.ops[i].succs) after = std::max(after, level[s]);
    level[i] = (*in.curves)[i].at(in.budget).total() * int64_t{g.ops[i].size()} + after;
  }
  return level;
}

// Ops with layers left whose predecessors are finished, by bottom level (ties: id), at most `budget`.
std::vector<int> ReadyOps(const SchedulerInputs& in, const std::vector<int>& next,
                          const std::vector<Duration>& level) {
  const MetaGraph& g = *in.graph;
  std::vector<int> ready;
  for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
    if (next[i] >= g.ops[i].size()) continue;
    bool ok = true;
    for (int p : g.ops[i].preds) ok = ok && next[p] >= g.ops[p].size();
    if (ok) ready.push_back(i);
  }
  std::stable_sort(ready.begin(), ready.end(), [&](int a, int b) { return level[a] > level[b]; });
  if (static_cast<int>(ready.size()) > in.budget) ready.resize(static_cast<size_t>(in.budget));
  return ready;
}

// The allocator's job for an op's `left` remaining layers.
MalleableJob RemainingJob(const ScalingCurve& c, int64_t left, int budget) {
  MalleableJob j;
  for (int n = 1; n <= budget; ++n) {
    const Duration t = c.at(n).feasible ? c.at(n).total() : Duration::Max();
    j.time.push_back(t == Duration::Max() ? t : t * left);
  }
  return j;
}

}  // namespace

Duration MoveTime(const train::StepContext* ctx, DeviceRange src, DeviceRange dst, double bytes,
                  double* moved_bytes) {
  if (!ctx || src.count <= 0 || dst.count <= 0 || bytes <= 0) return Duration::Zero();
  const int overlap = std::max(0, std::min(src.end(), dst.end()) - std::max(src.begin, dst.begin));
  const double local = static_cast<double>(overlap) / std::max(src.count, dst.count);
  const double moved = bytes * (1.0 - local);
  if (moved <= 0) return Duration::Zero();
  if (moved_bytes) *moved_bytes += moved;
  const int pairs = std::min(src.count, dst.count);
  const int g = std::max(1, ctx->gpus_per_node);
  const int lo = std::min(src.begin, dst.begin), hi = std::max(src.end(), dst.end()) - 1;
  const bool one_node = lo / g == hi / g;
  return ctx->comm->Time(net::Collective::kSendRecv, Bytes(moved / pairs), {2, one_node ? 2 : 1},
                         ctx->fabric);
}

Result<Schedule> WavefrontSchedule(const SchedulerInputs& in) {
  DLSIM_RETURN_IF_ERROR(CheckInputs(in));
  const MetaGraph& g = *in.graph;
  const std::vector<ScalingCurve>& curves = *in.curves;
  const int n_ops = static_cast<int>(g.ops.size());
  const std::vector<Duration> level = BottomLevels(in);
  std::vector<int> next(n_ops, 0);
  Locations loc(n_ops);
  ModuleNodes held(in);
  int finished = 0;
  Schedule out;
  out.budget = in.budget;
  while (finished < n_ops) {
    const std::vector<int> ready = ReadyOps(in, next, level);
    std::vector<MalleableJob> jobs;
    for (int i : ready) jobs.push_back(RemainingJob(curves[i], g.ops[i].size() - next[i], in.budget));
    DLSIM_ASSIGN_OR_RETURN(Allocation a, AllocateMinMakespan(jobs, in.budget));
    const std::vector<int> layers = WaveLayers(g, curves, ready, next, a);
    Wave w;
    for (size_t j = 0; j < ready.size(); ++j) {
      const int i = ready[j];
      if (layers[j] > 0) w.slices.push_back(MakeSlice(curves[i], i, next[i], layers[j], a.devices[j]));
    }
    Place(in, loc, held, w);
    Finish(g, w, loc, held);
    for (const Slice& s : w.slices) {
      next[s.op] += s.layers;
      if (next[s.op] == g.ops[s.op].size()) ++finished;
    }
    out.waves.push_back(std::move(w));
  }
  return out;
}

Result<Schedule> SequentialSchedule(const SchedulerInputs& in) {
  DLSIM_RETURN_IF_ERROR(CheckInputs(in));
  const MetaGraph& g = *in.graph;
  Locations loc(g.ops.size());
  ModuleNodes held(in);
  Schedule out;
  out.budget = in.budget;
  out.task_by_task = true;
  // Ids are task-major and topological within a task: the tasks in turn, each in order.
  for (const MetaOp& op : g.ops) {
    const ScalingCurve& c = (*in.curves)[op.id];
    Wave w;
    w.slices.push_back(MakeSlice(c, op.id, 0, op.size(), c.at(in.budget).config.devices()));
    Slice& s = w.slices.back();
    s.devices = {0, s.config.devices()};
    double moved = 0;
    w.transfer = SliceTransfer(in, loc, s, s.devices, &moved);
    w.moved = Bytes(moved);
    Finish(g, w, loc, held);
    out.waves.push_back(std::move(w));
  }
  return out;
}

Status CheckSchedule(const MetaGraph& g, const Schedule& s) {
  const int n_ops = static_cast<int>(g.ops.size());
  std::vector<int> next(n_ops, 0), first_wave(n_ops, -1), last_wave(n_ops, -1);
  for (int wi = 0; wi < static_cast<int>(s.waves.size()); ++wi) {
    const Wave& w = s.waves[wi];
    std::vector<DeviceRange> ranges;
    for (const Slice& sl : w.slices) {
      const std::string at = "wave " + std::to_string(wi) + ": ";
      if (sl.op < 0 || sl.op >= n_ops) return Error::Internal(at + "a slice of an unknown MetaOp");
      const MetaOp& op = g.ops[sl.op];
      if (sl.layers < 1 || sl.first_layer != next[sl.op] || next[sl.op] + sl.layers > op.size())
        return Error::Internal(at + op.name + " runs layers out of order");
      if (last_wave[sl.op] == wi) return Error::Internal(at + op.name + " has two slices");
      if (sl.devices.count != sl.config.devices() || sl.devices.begin < 0 || sl.devices.end() > s.budget)
        return Error::Internal(at + op.name + " is placed outside the budget or off its configuration");
      if (sl.config.tp > 0 && sl.devices.begin % sl.config.tp != 0)
        return Error::Internal(at + op.name + ": a tensor-parallel group is not aligned");
      if (sl.first_layer == 0) {
        for (int p : op.preds) {
          if (next[p] < g.ops[p].size() || last_wave[p] >= wi)
            return Error::Internal(at + op.name + " starts before its predecessor " + g.ops[p].name +
                                   " ends");
        }
      }
      for (const DeviceRange& r : ranges) {
        if (std::max(r.begin, sl.devices.begin) < std::min(r.end(), sl.devices.end()))
          return Error::Internal(at + op.name + " overlaps another slice's devices");
      }
      ranges.push_back(sl.devices);
      if (first_wave[sl.op] < 0) first_wave[sl.op] = wi;
      last_wave[sl.op] = wi;
      next[sl.op] += sl.layers;
    }
  }
  for (int i = 0; i < n_ops; ++i) {
    if (next[i] != g.ops[i].size()) return Error::Internal(g.ops[i].name + " does not run all its layers");
  }
  return Status::Ok();
}

}  // namespace dlsim::multitask
