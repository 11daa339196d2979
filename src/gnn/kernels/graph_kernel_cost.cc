// The GPU cost model of graph loops (graph_kernel_cost.h).
#include "dlsim/gnn/kernels/graph_kernel_cost.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace dlsim::gnn {
namespace {

constexpr double kElemBytes = 4;  // fp32
constexpr double kSectorBytes = 32;
constexpr int kMaxBlocksPerSm = 32;  // CUDA: resident blocks per SM (compute capability 7.0 and later)

int64_t Ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }
int Log2(int x) {
  int k = 0;
  while ((1 << (k + 1)) <= x) ++k;
  return k;
}

// What one schedule makes of one loop, independent of the graph.
struct Shape {
  bool vertex = true;
  int64_t group = 1;
  int64_t elems = 1;      // elements a thread (or warp) handles per edge
  int64_t dot_steps = 0;  // shuffle steps per edge of a dot product
  int64_t threads_per_unit = 1;
  int64_t units_per_block = 1;
  int64_t blocks_per_unit = 1;
  double sectors_per_step = 1;  // L1 sectors one unit requests per row access and step
};

Shape MakeShape(const GraphLoop& l, const Schedule& s) {
  Shape sh;
  sh.vertex = IsVertexParallel(s.mapping);
  sh.group = s.group;
  const int64_t w = l.width, t = s.tiles;
  if (IsWarpPerUnit(s.mapping)) {
    sh.elems = Ceil(w, kWarpSize * t);
    sh.threads_per_unit = kWarpSize * t;
    const int64_t lanes = std::min<int64_t>(kWarpSize, Ceil(w, t));
    sh.sectors_per_step = static_cast<double>(t * Ceil(lanes * 4, 32));
    sh.dot_steps = l.dot ? Log2(kWarpSize) : 0;
  } else {
    sh.elems = Ceil(w, t);
    sh.threads_per_unit = t;
    sh.sectors_per_step = static_cast<double>(Ceil(t * 4, 32));
    sh.dot_steps = l.dot ? Log2(static_cast<int>(std::min<int64_t>(t, kWarpSize))) : 0;
  }
  sh.units_per_block = std::max<int64_t>(1, kBlockThreads / sh.threads_per_unit);
  sh.blocks_per_unit = std::max<int64_t>(1, sh.threads_per_unit / kBlockThreads);
  return sh;
}

int64_t UnitSteps(const Shape& sh, const GraphLoop& l, int64_t edges, int64_t rows) {
  const int64_t write_rows = sh.vertex && l.to_dst != DstReduce::kNone ? rows : 0;
  return edges * (sh.elems + sh.dot_steps) + write_rows * sh.elems;
}

int64_t NumUnits(const GraphProfile& g, const Shape& sh) {
  return Ceil(sh.vertex ? g.nodes : g.edges, sh.group);
}

int64_t BlockSlots(const hw::GpuSpec& gpu) {
  return static_cast<int64_t>(gpu.sm_count) *
         std::clamp(gpu.max_threads_per_sm / kBlockThreads, 1, kMaxBlocksPerSm);
}

// (edges, rows) of unit u.
std::pair<int64_t, int64_t> UnitWork(const GraphProfile& g, const Shape& sh, int64_t u) {
  const int64_t lo = u * sh.group;
  if (!sh.vertex) return {std::min(g.edges, lo + sh.group) - lo, 0};
  const int64_t hi = std::min(g.nodes, lo + sh.group);
  return {static_cast<int64_t>(g.offsets[hi] - g.offsets[lo]), hi - lo};
}

struct Latency {
  double ns = 0;
  int64_t blocks = 0;
  double imbalance = 0;
};

// An edge mapping with a block per unit or fewer: every unit but the last has `group` edges, so
// the list schedule has a closed form: equal blocks in waves, then the last block in the earliest slot.
Latency EqualBlocks(const GraphProfile& g, const GraphLoop& l, const Shape& sh, int64_t slots,
                    double step_ns) {
  const int64_t units = NumUnits(g, sh);
  const int64_t last_edges = g.edges - (units - 1) * sh.group;
  const auto full = static_cast<double>(UnitSteps(sh, l, sh.group, 0));
  const auto last = static_cast<double>(UnitSteps(sh, l, last_edges, 0));
  Latency out;
  out.blocks = Ceil(units, sh.units_per_block);
  const int64_t in_last_block = units - (out.blocks - 1) * sh.units_per_block;
  const double tail = in_last_block > 1 ? full : last;  // the last block's slowest unit
  const int64_t before = out.blocks - 1;                // full blocks ahead of it
  const double waves = static_cast<double>(Ceil(before, slots));
  out.ns = std::max(waves * full, static_cast<double>(before / slots) * full + tail) * step_ns;
  const double mean = (static_cast<double>(units - 1) * full + last) / static_cast<double>(units);
  out.imbalance = (units > 1 ? full : last) / mean;
  return out;
}

// The list schedule of the blocks over the slots, and the units' max / mean steps.
Latency ScheduleBlocks(const GraphProfile& g, const GraphLoop& l, const Shape& sh, int64_t slots,
                       double step_ns) {
  if (!sh.vertex && sh.blocks_per_unit == 1) return EqualBlocks(g, l, sh, slots, step_ns);
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int64_t i = 0; i < slots; ++i) free_at.push(0);
  Latency out;
  const int64_t units = NumUnits(g, sh);
  double finish = 0, sum = 0, max_unit = 0, busy_units = 0;
  for (int64_t first = 0; first < units; first += sh.units_per_block) {
    int64_t block_steps = 0;
    for (int64_t u = first; u < std::min(units, first + sh.units_per_block); ++u) {
      const auto [edges, rows] = UnitWork(g, sh, u);
      const int64_t steps = UnitSteps(sh, l, edges, rows);
      block_steps = std::max(block_steps, steps);
      if (edges > 0) sum += static_cast<double>(steps), busy_units += 1;
      max_unit = std::max(max_unit, static_cast<double>(steps));
    }
    for (int64_t b = 0; b < sh.blocks_per_unit; ++b, ++out.blocks) {
      const double end = free_at.top() + static_cast<double>(block_steps) * step_ns;
      free_at.pop();
      free_at.push(end);
      finish = std::max(finish, end);
    }
  }
  out.ns = finish;
  out.imbalance = busy_units > 0 ? max_unit / (sum / busy_units) : 1;
  return out;
}

// Distinct (unit, destination) pairs of an edge mapping, and the most on one destination.
std::pair<double, int64_t> CountRuns(const GraphProfile& g, int64_t group) {
  if (group == 1) return {static_cast<double>(g.edges), g.max_in_degree};
  double runs = 0;
  int64_t most = 0;
  for (int64_t v = 0; v < g.nodes; ++v) {
    const auto lo = static_cast<int64_t>(g.offsets[v]), hi = static_cast<int64_t>(g.offsets[v + 1]);
    if (hi == lo) continue;
    const int64_t n = (hi - 1) / group - lo / group + 1;
    runs += static_cast<double>(n);
    most = std::max(most, n);
  }
  return {runs, most};
}

std::pair<double, int64_t> Runs(const GraphProfile& g, int64_t group) {
  const int k = Log2(static_cast<int>(std::min<int64_t>(group, 1 << 30)));
  if ((int64_t{1} << k) == group && k < static_cast<int>(g.runs_by_log2_group.size())) {
    return {g.runs_by_log2_group[k].runs, g.runs_by_log2_group[k].most};
  }
  return CountRuns(g, group);
}

struct Traffic {
  double dram = 0, all = 0;
};

double RowBytes(int width) {
  return static_cast<double>(Ceil(static_cast<int64_t>(width) * 4, 32)) * kSectorBytes;
}

// Bytes of one loop; `runs` are the (unit, destination) pairs of an edge mapping.
Traffic Bytes(const GraphProfile& g, const GraphLoop& l, bool vertex, double runs, const hw::GpuSpec& gpu,
              const KernelModelParams& p) {
  const double n = static_cast<double>(g.nodes), m = static_cast<double>(g.edges), rb = RowBytes(l.width);
  const double dense = n * l.width * kElemBytes;
  Traffic t;
  const double index = vertex ? (n + 1) * 8 + m * 4 : m * 8;
  const double edge_io = m * (l.read_edge + l.write_edge) * kElemBytes;
  t.dram = index + edge_io;
  t.all = index + edge_io;
  if (l.read_src) {
    const double fit = std::min(1.0, gpu.l2_size.value() * p.l2_usable_fraction / std::max(1.0, n * rb));
    t.all += m * rb;
    t.dram += std::min(m, n) * rb + std::max(0.0, m - n) * rb * (1 - fit);
  }
  if (l.read_dst) {
    t.all += (vertex ? n : runs) * rb;
    t.dram += n * rb;
  }
  if (l.to_dst != DstReduce::kNone) {
    const double passes = vertex ? 1 : 1 + (l.mean ? 2 : 0);  // the row, or the zero fill and the mean pass
    t.all += dense * passes;
    t.dram += dense * passes;
  }
  return t;
}

Status CheckInputs(const GraphProfile& g, const GraphLoop& l, const Schedule& s, const hw::GpuSpec& gpu,
                   const KernelModelParams& p) {
  DLSIM_RETURN_IF_ERROR(CheckSchedule(s, l.width));
  if (g.nodes < 1 || g.edges < 1 || static_cast<int64_t>(g.offsets.size()) != g.nodes + 1)
    return Error::InvalidArgument("graph profile: the graph has no edge (build it with ProfileGraph)");
  if (gpu.sm_count < 1 || gpu.hbm_bandwidth.value() <= 0)
    return Error::InvalidArgument("gpu " + gpu.name + ": needs sm_count and memory bandwidth");
  for (double v : {p.step_latency_ns, p.l1_sectors_per_ns_per_sm, p.l2_bandwidth_ratio, p.l2_usable_fraction,
                   p.atomics_per_ns_per_sm, p.same_address_atomic_ns, p.max_atomic_factor}) {
    if (!(v > 0)) return Error::InvalidArgument("kernel model parameters must be positive");
  }
  if (p.launch_ns < 0) return Error::InvalidArgument("kernel model: launch_ns must be >= 0");
  return Status::Ok();
}

struct Terms {
  double memory = 0, lsu = 0, atomics = 0, contention = 0, launch = 0, count = 0, dram = 0;
  int kernels = 1;
};

// Everything but the latency term. `runs` / `most`: Runs() of an edge mapping (or bounds of it).
Terms ThroughputTerms(const GraphProfile& g, const GraphLoop& l, const Schedule& s, const Shape& sh,
                      double runs, int64_t most, const hw::GpuSpec& gpu, const KernelModelParams& p) {
  Terms t;
  const bool reduce = l.to_dst != DstReduce::kNone;
  const bool atomic = !sh.vertex && reduce;
  const double bw = gpu.hbm_bandwidth.value() * 1e-9;  // bytes per ns
  const Traffic b = Bytes(g, l, sh.vertex, runs, gpu, p);
  t.dram = b.dram;
  t.memory = std::max(b.dram / bw, b.all / (bw * p.l2_bandwidth_ratio));
  const double accesses = (l.read_src ? 1 : 0) + (l.read_edge > 1 ? 1 : 0) + (l.write_edge > 1 ? 1 : 0) +
                          (l.read_dst && !sh.vertex ? 1 : 0);
  const double steps = static_cast<double>(g.edges) * static_cast<double>(sh.elems);
  t.lsu = steps * accesses * sh.sectors_per_step / (gpu.sm_count * p.l1_sectors_per_ns_per_sm);
  const double factor = l.to_dst == DstReduce::kMax ? p.max_atomic_factor : 1;
  if (atomic) {
    const double per_dst = s.reduction == Reduction::kSegment ? runs : static_cast<double>(g.edges);
    const double most_on_one =
        s.reduction == Reduction::kSegment ? static_cast<double>(most) : static_cast<double>(g.max_in_degree);
    // A unit-step's adjacent elements of one destination row are one atomic transaction per sector.
    t.count = per_dst * static_cast<double>(sh.elems) * sh.sectors_per_step;
    t.contention = most_on_one * factor * p.same_address_atomic_ns;
    t.kernels += 1 + (l.mean ? 1 : 0);
  }
  if (l.dot && s.tiles > (IsWarpPerUnit(s.mapping) ? 1 : kWarpSize)) {
    t.count += static_cast<double>(g.edges) * s.tiles;  // partial dots of different warps meet by atomics
  }
  t.atomics = t.count * factor / (gpu.sm_count * p.atomics_per_ns_per_sm);
  t.launch = t.kernels * p.launch_ns;
  return t;
}

void Finish(LoopCost& c) {
  const std::pair<double, const char*> terms[] = {{c.latency_ns, "latency"},
                                                  {c.memory_ns, "memory"},
                                                  {c.lsu_ns, "lsu"},
                                                  {c.atomics_ns, "atomics"},
                                                  {c.contention_ns, "contention"}};
  const auto* top = &terms[0];
  for (const auto& t : terms) {
    if (t.first > top->first) top = &t;
  }
  c.bound = top->second;
  c.time_ns = c.launch_ns + top->first;
}

}  // namespace

GraphProfile ProfileGraph(const Graph& g) {
  GraphProfile p;
  p.nodes = g.num_nodes();
  p.offsets = g.csc().offsets;
  p.edges = p.offsets.empty() ? 0 : static_cast<int64_t>(p.offsets.back());
  for (int64_t v = 0; v < p.nodes; ++v) {
    const auto d = static_cast<int64_t>(p.offsets[v + 1] - p.offsets[v]);
    p.max_in_degree = std::max(p.max_in_degree, d);
    if (d > 0) ++p.nonempty;
  }
  for (int64_t group = 1; group <= 64; group *= 2) {
    const auto [runs, most] = CountRuns(p, group);
    p.runs_by_log2_group.push_back({runs, most});
  }
  return p;
}

Result<LoopCost> CostLoop(const GraphProfile& g, const GraphLoop& loop, const Schedule& s,
                          const hw::GpuSpec& gpu, const KernelModelParams& p) {
  DLSIM_RETURN_IF_ERROR(CheckInputs(g, loop, s, gpu, p));
  const Shape sh = MakeShape(loop, s);
  const auto [runs, most] = sh.vertex ? std::pair<double, int64_t>{0, 0} : Runs(g, s.group);
  const Terms t = ThroughputTerms(g, loop, s, sh, runs, most, gpu, p);
  const int64_t slots = BlockSlots(gpu);
  const Latency lat = ScheduleBlocks(g, loop, sh, slots, p.step_latency_ns);
  LoopCost c;
  c.loop = loop.name;
  c.schedule = ScheduleName(s);
  c.latency_ns = lat.ns;
  c.memory_ns = t.memory;
  c.lsu_ns = t.lsu;
  c.atomics_ns = t.atomics;
  c.contention_ns = t.contention;
  c.launch_ns = t.launch;
  c.kernels = t.kernels;
  c.units = NumUnits(g, sh);
  c.blocks = lat.blocks;
  c.imbalance = lat.imbalance;
  c.occupancy = std::min(1.0, static_cast<double>(lat.blocks) / static_cast<double>(slots));
  c.dram_bytes = t.dram;
  c.atomics = t.count;
  Finish(c);
  return c;
}

double LoopLowerBoundNs(const GraphProfile& g, const GraphLoop& loop, const Schedule& s,
                        const hw::GpuSpec& gpu, const KernelModelParams& p) {
  const Shape sh = MakeShape(loop, s);
  // Runs are at least one per busy destination and one per unit; the most on one address >= 1.
  const double runs_lb =
      std::max(static_cast<double>(g.nonempty), static_cast<double>(Ceil(g.edges, s.group)));
  const Terms t =
      ThroughputTerms(g, loop, s, sh, sh.vertex ? 0 : runs_lb, Ceil(g.max_in_degree, s.group), gpu, p);
  const int64_t biggest_unit = sh.vertex ? g.max_in_degree : std::min<int64_t>(s.group, g.edges);
  const double total_steps = static_cast<double>(UnitSteps(sh, loop, g.edges, g.nodes));
  const double spread = total_steps * static_cast<double>(sh.blocks_per_unit) /
                        static_cast<double>(sh.units_per_block * BlockSlots(gpu));
  const double latency =
      p.step_latency_ns * std::max(spread, static_cast<double>(UnitSteps(sh, loop, biggest_unit, 1)));
  return t.launch + std::max({latency, t.memory, t.lsu, t.atomics, t.contention});
}

}  // namespace dlsim::gnn
