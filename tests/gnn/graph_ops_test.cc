// The uGrapher pieces: graph operators, the schedule space, the kernel cost model and the selector.
#include <gtest/gtest.h>

#include <cmath>

#include "dlsim/gnn/kernels/graph_kernel_cost.h"
#include "dlsim/gnn/kernels/graph_op.h"
#include "dlsim/gnn/kernels/graph_schedule.h"
#include "dlsim/gnn/kernels/schedule_select.h"
#include "dlsim/gnn/rmat.h"
#include "dlsim/io/catalog_loader.h"

namespace dlsim::gnn {
namespace {

// A GPU with round numbers: 10 SMs x 8 block slots, 1000 GB/s (1000 bytes per ns), no L2.
hw::GpuSpec TestGpu() {
  hw::GpuSpec g;
  g.name = "test";
  g.sm_count = 10;
  g.max_threads_per_sm = 2048;
  g.hbm_bandwidth = GBps(1000);
  g.l2_size = MiB(0);
  return g;
}

Graph MustBuild(const EdgeList& e, bool undirected) {
  return BuildGraph(e, {.undirected = undirected}).value();
}

// Every vertex linked to the next `half` around a ring (undirected: in-degree 2 x half).
Graph Ring(int64_t n, int half) {
  EdgeList e;
  e.num_nodes = n;
  for (int64_t v = 0; v < n; ++v) {
    for (int k = 1; k <= half; ++k) {
      e.src.push_back(static_cast<NodeId>(v));
      e.dst.push_back(static_cast<NodeId>((v + k) % n));
    }
  }
  return MustBuild(e, true);
}

Graph Star(int64_t leaves) {
  EdgeList e;
  e.num_nodes = leaves + 1;
  for (int64_t v = 1; v <= leaves; ++v) e.src.push_back(0), e.dst.push_back(static_cast<NodeId>(v));
  return MustBuild(e, true);
}

// A directed graph whose vertex 0 has in-degree `hub` (< n) and every other vertex (m - hub) / (n - 1).
Graph Skewed(int64_t n, int64_t m, int64_t hub) {
  EdgeList e;
  e.num_nodes = n;
  const int64_t rest = (m - hub) / (n - 1);
  for (int64_t v = 0; v < n; ++v) {
    const int64_t d = v == 0 ? hub : rest;
    for (int64_t k = 1; k <= d; ++k) {
      e.src.push_back(static_cast<NodeId>((v + k) % n));
      e.dst.push_back(static_cast<NodeId>(v));
    }
  }
  return MustBuild(e, false);
}

std::vector<GraphLoop> OpLoops(const std::string& name, int f) {
  GraphOpRegistry reg("graph-op");
  RegisterGraphOps(reg);
  return reg.Create(name).value()->Loops(f);
}

const KernelModelParams kP;

TEST(GraphScheduleTest, NamesAndChecks) {
  EXPECT_EQ(ScheduleName({Mapping::kThreadEdge, 8, 16, Reduction::kSegment}), "TE_G8_T16_SEG");
  EXPECT_EQ(ScheduleName({.mapping = Mapping::kWarpVertex}), "WV_G1_T1");
  EXPECT_TRUE(CheckSchedule({Mapping::kThreadEdge, 4, 16}, 16).ok());
  EXPECT_FALSE(CheckSchedule({Mapping::kThreadEdge, 4, 32}, 16).ok());  // tiles above the width
  EXPECT_FALSE(CheckSchedule({Mapping::kWarpEdge, 1, 2}, 32).ok());     // one warp covers 32
  EXPECT_FALSE(CheckSchedule({Mapping::kThreadEdge, 1, 3}, 16).ok());   // not a power of two
  EXPECT_FALSE(CheckSchedule({Mapping::kThreadEdge, 0, 1}, 16).ok());
  EXPECT_FALSE(CheckSchedule({Mapping::kThreadVertex, 2, 1, Reduction::kSegment}, 16).ok());
  EXPECT_FALSE(CheckSchedule({}, 0).ok());
}

TEST(GraphScheduleTest, SpaceIsUGraphersGridClampedToTheWidth) {
  ScheduleFamilyRegistry fam("graph-schedule");
  RegisterScheduleFamilies(fam);
  // Width 64: TV 7 x 7, WV 7 x 2, TE 7 x 7 + 6 x 7 segments, WE 7 x 2 + 6 x 2.
  EXPECT_EQ(ScheduleSpace(fam, 64).size(), 49u + 14u + 49u + 42u + 14u + 12u);
  for (const Schedule& s : ScheduleSpace(fam, 8)) EXPECT_TRUE(CheckSchedule(s, 8).ok()) << ScheduleName(s);
}

TEST(GraphKernelCostTest, ClosedFormEdgeParallelOnARegularGraph) {
  const GraphProfile g = ProfileGraph(Ring(4096, 8));  // m = 65536 stored edges, in-degree 16
  ASSERT_EQ(g.edges, 65536);
  const hw::GpuSpec gpu = TestGpu();
  const GraphLoop loop = OpLoops("spmm-sum", 16)[0];
  const LoopCost c = CostLoop(g, loop, {Mapping::kThreadEdge, 4, 8}, gpu, kP).value();
  // 16384 units of 4 edges, 8 threads each: 32 units per block, 512 blocks over 80 slots = 7 waves of
  // 4 edges x 2 elements = 8 steps.
  EXPECT_EQ(c.units, 16384);
  EXPECT_EQ(c.blocks, 512);
  EXPECT_DOUBLE_EQ(c.latency_ns, 7 * 8 * kP.step_latency_ns);
  EXPECT_DOUBLE_EQ(c.imbalance, 1.0);
  // Bytes: COO 8 per edge; 64-byte rows gathered once per edge (DRAM: no L2); a zero fill of 64 bytes
  // per vertex. The most atomics on one destination is its in-degree.
  const double bytes = 65536.0 * 8 + 65536.0 * 64 + 4096.0 * 64;
  EXPECT_DOUBLE_EQ(c.dram_bytes, bytes);
  EXPECT_DOUBLE_EQ(c.memory_ns, bytes / 1000);
  // Atomics: per edge 2 steps of 8 adjacent elements = 2 one-sector transactions.
  EXPECT_DOUBLE_EQ(c.atomics, 65536.0 * 2);
  EXPECT_DOUBLE_EQ(c.atomics_ns, 65536.0 * 2 / (10 * kP.atomics_per_ns_per_sm));
  EXPECT_DOUBLE_EQ(c.contention_ns, 16 * kP.same_address_atomic_ns);
  // Sector requests: 8 lanes read 32 adjacent bytes = 1 sector per unit-step, 2 steps per edge.
  EXPECT_DOUBLE_EQ(c.lsu_ns, 65536.0 * 2 / (10 * kP.l1_sectors_per_ns_per_sm));
  EXPECT_EQ(c.kernels, 2);  // the loop and the zero fill
  EXPECT_DOUBLE_EQ(c.time_ns,
                   2 * kP.launch_ns + std::max({c.latency_ns, c.memory_ns, c.lsu_ns, c.atomics_ns}));
}

TEST(GraphKernelCostTest, ClosedFormWarpPerVertex) {
  const GraphProfile g = ProfileGraph(Ring(4096, 8));
  const LoopCost c =
      CostLoop(g, OpLoops("spmm-sum", 64)[0], {.mapping = Mapping::kWarpVertex}, TestGpu(), kP).value();
  // A warp per vertex: 16 edges x 2 elements per lane, + 2 steps writing the row; 8 per block:
  // 512 blocks, 7 waves of 34 steps. No atomics, one kernel.
  EXPECT_EQ(c.blocks, 512);
  EXPECT_DOUBLE_EQ(c.latency_ns, 7 * 34 * kP.step_latency_ns);
  EXPECT_DOUBLE_EQ(c.atomics, 0);
  EXPECT_DOUBLE_EQ(c.contention_ns, 0);
  EXPECT_EQ(c.kernels, 1);
}

TEST(GraphKernelCostTest, StarGraphHubDominatesVertexParallel) {
  const GraphProfile g = ProfileGraph(Star(20000));
  const GraphLoop loop = OpLoops("spmm-sum", 32)[0];
  const hw::GpuSpec gpu = TestGpu();
  const LoopCost wv = CostLoop(g, loop, {.mapping = Mapping::kWarpVertex}, gpu, kP).value();
  // The hub's warp gathers 20000 rows one after the other (+1 step for its row): the kernel's length.
  EXPECT_DOUBLE_EQ(wv.latency_ns, 20001 * kP.step_latency_ns);
  EXPECT_EQ(wv.bound, "latency");
  EXPECT_GT(wv.imbalance, 5000);  // max / mean unit steps: ~20001 / ~3
  const LoopCost te = CostLoop(g, loop, {Mapping::kThreadEdge, 32, 32, Reduction::kSegment}, gpu, kP).value();
  EXPECT_LT(te.time_ns, wv.time_ns / 10);
  // Segment reduction: the hub's 20000 in-edges span 625 units of 32 (one atomic run each).
  EXPECT_DOUBLE_EQ(te.contention_ns, 625 * kP.same_address_atomic_ns);
  const LoopCost atomic_each = CostLoop(g, loop, {Mapping::kThreadEdge, 32, 32}, gpu, kP).value();
  EXPECT_DOUBLE_EQ(atomic_each.contention_ns, 20000 * kP.same_address_atomic_ns);

  ScheduleFamilyRegistry fam("graph-schedule");
  RegisterScheduleFamilies(fam);
  const OpChoice best = SelectSchedules(g, {loop}, fam, gpu, kP).value();
  EXPECT_FALSE(IsVertexParallel(best.schedules[0].mapping)) << ScheduleName(best.schedules[0]);
}

TEST(GraphKernelCostTest, MonotoneInTheImbalance) {
  const hw::GpuSpec gpu = TestGpu();
  const GraphLoop loop = OpLoops("spmm-max", 16)[0];
  const std::vector<Schedule> vertex = {{.mapping = Mapping::kWarpVertex}, {Mapping::kThreadVertex, 4, 16}};
  double prev[2] = {0, 0}, prev_imb = 0;
  // Same vertices and edges; the hub takes more of them each time.
  for (int64_t hub : {100, 1000, 5000, 20000}) {
    const GraphProfile g = ProfileGraph(Skewed(20001, 200010, hub));
    for (size_t i = 0; i < vertex.size(); ++i) {
      const LoopCost c = CostLoop(g, loop, vertex[i], gpu, kP).value();
      EXPECT_GE(c.time_ns, prev[i]) << ScheduleName(vertex[i]) << " hub " << hub;
      prev[i] = c.time_ns;
      if (i == 0) {
        EXPECT_GT(c.imbalance, prev_imb);
        prev_imb = c.imbalance;
      }
    }
  }
}

TEST(GraphKernelCostTest, CoalescingFavoursAdjacentLanes) {
  const GraphProfile g = ProfileGraph(Ring(4096, 8));
  const GraphLoop loop = OpLoops("copy-u", 32)[0];
  const LoopCost one_lane_per_row = CostLoop(g, loop, {Mapping::kThreadEdge, 1, 1}, TestGpu(), kP).value();
  const LoopCost adjacent = CostLoop(g, loop, {Mapping::kThreadEdge, 1, 32}, TestGpu(), kP).value();
  // T1: 32 steps per edge, a sector each, for 2 accesses; T32: 1 step of 4 sectors.
  EXPECT_DOUBLE_EQ(one_lane_per_row.lsu_ns, 8 * adjacent.lsu_ns);
  EXPECT_DOUBLE_EQ(one_lane_per_row.dram_bytes, adjacent.dram_bytes);  // the same bytes move
}

TEST(GraphKernelCostTest, BadInputs) {
  const GraphProfile g = ProfileGraph(Ring(64, 2));
  const GraphLoop loop = OpLoops("spmm-sum", 16)[0];
  EXPECT_FALSE(CostLoop(g, loop, {Mapping::kThreadEdge, 1, 64}, TestGpu(), kP).ok());
  hw::GpuSpec no_sms = TestGpu();
  no_sms.sm_count = 0;
  EXPECT_FALSE(CostLoop(g, loop, {}, no_sms, kP).ok());
  KernelModelParams bad;
  bad.step_latency_ns = 0;
  EXPECT_FALSE(CostLoop(g, loop, {}, TestGpu(), bad).ok());
  EXPECT_FALSE(CostLoop(GraphProfile{}, loop, {}, TestGpu(), kP).ok());
  ScheduleFamilyRegistry fam("graph-schedule");
  RegisterScheduleFamilies(fam);
  EXPECT_FALSE(SelectSchedules(g, {}, fam, TestGpu(), kP).ok());
}

std::vector<Graph> SmallGraphs() {
  std::vector<Graph> out;
  out.push_back(MustBuild(GenerateRmat({.scale = 9, .edge_factor = 8}).value(), true));
  out.push_back(
      MustBuild(GenerateRmat({.scale = 8, .edge_factor = 4, .a = 0.7, .b = 0.1, .c = 0.1}).value(), true));
  out.push_back(Star(500));
  out.push_back(Ring(1000, 3));
  return out;
}

TEST(ScheduleSelectTest, EqualsBruteForceAndBeatsTheStaticKernels) {
  const catalog::Catalogs cat = io::LoadCatalogs({}).value();
  ScheduleFamilyRegistry fam("graph-schedule");
  RegisterScheduleFamilies(fam);
  StaticKernelRegistry kernels("graph-op-baseline");
  RegisterStaticKernels(kernels);
  GraphOpRegistry ops("graph-op");
  RegisterGraphOps(ops);
  int pruned = 0, total = 0;
  for (const Graph& graph : SmallGraphs()) {
    const GraphProfile g = ProfileGraph(graph);
    for (const char* gpu_name : {"v100", "a100"}) {
      const hw::GpuSpec& gpu = *cat.hardware.FindGpu(gpu_name).value();
      for (const std::string& op : ops.Names()) {
        const auto loops = ops.Create(op).value()->Loops(op == "edge-softmax" ? 4 : 16);
        const OpChoice fast = SelectSchedules(g, loops, fam, gpu, kP).value();
        const OpChoice brute = SelectByBruteForce(g, loops, fam, gpu, kP).value();
        EXPECT_EQ(fast.schedules, brute.schedules) << op;
        EXPECT_DOUBLE_EQ(fast.time_ns, brute.time_ns) << op;
        pruned += brute.evaluated - fast.evaluated;
        total += brute.evaluated;
        for (const std::string& k : kernels.Names()) {
          const OpChoice base = CostStatic(g, loops, *kernels.Create(k).value(), gpu, kP).value();
          EXPECT_LE(fast.time_ns, base.time_ns) << op << " vs " << k;
        }
        for (const GraphLoop& l : loops) {
          for (const Schedule& s : ScheduleSpace(fam, l.width)) {
            EXPECT_LE(LoopLowerBoundNs(g, l, s, gpu, kP),
                      CostLoop(g, l, s, gpu, kP).value().time_ns * (1 + 1e-12))
                << op << " " << ScheduleName(s);
          }
        }
      }
    }
  }
  EXPECT_GT(pruned, total / 2);  // the bound saves most of the work
}

}  // namespace
}  // namespace dlsim::gnn
