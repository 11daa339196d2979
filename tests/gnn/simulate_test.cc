// gnn::Simulate end to end on small graphs: determinism, conservation of feature reads, cache
// extremes, and BGL's locality claims on a real graph (Cora).
#include "dlsim/gnn/simulate.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "gnn_test_env.h"

namespace dlsim::gnn {
namespace {

GnnOptions CoraOptions() {
  auto sc =
      testing::Parse(testing::Scenario("{file: cora.cites, format: tsv}",
                                       "  features: {dim: 1433}\n"
                                       "  split: {train: 0.5, val: 0.1, test: 0.1}\n"
                                       "  sampler: {fanouts: [10, 5]}\n"
                                       "  batch: {size: 64}\n"
                                       "  hardware: {node: dgx-a100, machines: 2, gpus_per_machine: 2}\n"
                                       "  store: partitioned\n"
                                       "  cache: {policy: fifo, gpu_gib: 0.001}\n"));
  EXPECT_TRUE(sc.ok()) << sc.error().message;
  return sc->options;
}

GnnResult SimulateOk(const GnnOptions& o) {
  auto r = Simulate(o, testing::Catalogs(), nullptr);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : GnnResult{};
}

TEST(GnnSimulateTest, CoraShapeAndDeterminism) {
  const GnnResult a = SimulateOk(CoraOptions());
  const GnnResult b = SimulateOk(CoraOptions());
  EXPECT_EQ(a.nodes, 2708);
  EXPECT_EQ(a.edges, 2 * 5278);  // 5,429 citation lines, 5,278 distinct undirected pairs
  EXPECT_EQ(a.train_nodes, 1354);
  EXPECT_EQ(a.epoch, b.epoch);
  EXPECT_EQ(a.gpu_hit_ratio, b.gpu_hit_ratio);
  EXPECT_EQ(a.bytes.remote, b.bytes.remote);
  EXPECT_GT(a.epoch, Duration::Zero());
}

// The progress callback counts training nodes over both machines, never goes back, ends at all of them; with
// Compare, at all of every variant's; the result does not depend on it.
TEST(GnnSimulateTest, ProgressCountsTrainingNodesToTheEnd) {
  std::vector<std::pair<size_t, size_t>> calls;
  const ProgressFn record = [&calls](size_t done, size_t total) { calls.emplace_back(done, total); };
  auto r = Simulate(CoraOptions(), testing::Catalogs(), nullptr, record);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_GE(calls.size(), 2u);
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_GE(calls[i].first, calls[i - 1].first);
  EXPECT_EQ(calls.back(), std::make_pair(size_t{1354}, size_t{1354}));
  EXPECT_EQ(r->epoch, SimulateOk(CoraOptions()).epoch);
  calls.clear();
  const std::vector<GnnVariant> two = {PolicyVariant("a", "shuffle", "none", "hash", 0),
                                       PolicyVariant("b", "bfs", "fifo", "hash", 0)};
  ASSERT_TRUE(Compare(CoraOptions(), two, testing::Catalogs(), record).ok());
  EXPECT_EQ(calls.back(), std::make_pair(size_t{2708}, size_t{2708}));
}

// A graph beyond the machine's memory is refused before it is built, from the measured bytes per edge and
// node; METIS's own copy of the adjacency counts, in --compare too.
TEST(GnnSimulateTest, AGraphBeyondTheMachinesMemoryIsRefusedFirst) {
  GnnOptions o = CoraOptions();
  o.graph.rmat = true;
  o.graph.rmat_options.scale = 20;  // 16.8M edges: about 0.4 GiB measured (24 B per edge, 32 per node)
  setenv("DLSIM_MEMORY_GIB", "0.4", 1);
  auto r = Simulate(o, testing::Catalogs(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("graph: the run needs about 0.406 GiB"), std::string::npos)
      << r.error().message;
  o.graph.rmat_options.scale = 16;  // 1M edges: fits, but not with METIS (160 B per edge) on 0.1 GiB
  setenv("DLSIM_MEMORY_GIB", "0.1", 1);
  EXPECT_TRUE(Simulate(o, testing::Catalogs(), nullptr).ok());
  const std::vector<GnnVariant> metis = {PolicyVariant("metis", "shuffle", "none", "metis", 0)};
  auto c = Compare(o, metis, testing::Catalogs());
  unsetenv("DLSIM_MEMORY_GIB");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("160 per edge with METIS"), std::string::npos) << c.error().message;
}

TEST(GnnSimulateTest, EveryReadLandsInExactlyOneTier) {
  const GnnResult r = SimulateOk(CoraOptions());
  const double row = 1433 * 4;
  const TierBytes& t = r.bytes;
  const double reads = (t.gpu + t.nvlink + t.host + t.remote + t.disk).ToBytes() / row;
  EXPECT_NEAR(reads, r.input_nodes_per_batch * static_cast<double>(r.batches), 1e-6);
  EXPECT_NEAR(r.gpu_hit_ratio, (t.gpu + t.nvlink).ToBytes() / row / reads, 1e-12);
}

TEST(GnnSimulateTest, CacheExtremes) {
  GnnOptions o = CoraOptions();
  o.cache.policy = "none";
  EXPECT_EQ(SimulateOk(o).gpu_hit_ratio, 0);
  // A static cache of exactly every node (2 GPUs x 1354 nodes x 5,732 B) serves every read.
  o.cache.policy = "degree";
  o.cache.gpu_gib = 1354 * 1433 * 4.0 / (1 << 30);
  const GnnResult all = SimulateOk(o);
  EXPECT_EQ(all.gpu_cache_nodes, 2708);
  EXPECT_DOUBLE_EQ(all.gpu_hit_ratio, 1.0);
  EXPECT_EQ(all.bytes.remote.ToBytes(), 0);
}

TEST(GnnSimulateTest, BglPartitionCutsRemoteRequests) {
  GnnOptions o = CoraOptions();
  const GnnResult hash = SimulateOk(o);
  o.partitioner = "bgl";
  const GnnResult bgl = SimulateOk(o);
  EXPECT_LT(bgl.partition.edge_cut, hash.partition.edge_cut / 2);
  EXPECT_LT(bgl.remote_requests_per_batch, hash.remote_requests_per_batch / 2);
}

TEST(GnnSimulateTest, BfsOrderRaisesTheFifoHitRatio) {
  GnnOptions o = CoraOptions();
  o.hardware.machines = 1;
  o.order = "shuffle";
  const GnnResult shuffled = SimulateOk(o);
  o.order = "bfs";
  o.order_options.sequences = 1;
  const GnnResult bfs = SimulateOk(o);
  EXPECT_GT(bfs.gpu_hit_ratio, shuffled.gpu_hit_ratio);
}

TEST(GnnSimulateTest, DiskStoreReadsTheDisk) {
  GnnOptions o = CoraOptions();
  o.store = FeatureStore::kDisk;
  o.cache.host_gib = 0.02;  // ten times the GPU caches: an equal FIFO would hold the same nodes
  const GnnResult r = SimulateOk(o);
  EXPECT_GT(r.bytes.disk.ToBytes(), 0);
  EXPECT_EQ(r.bytes.remote.ToBytes(), 0);
  EXPECT_GT(r.host_hit_ratio, 0);
}

TEST(GnnSimulateTest, GpuCacheBeyondGpuMemoryIsInfeasible) {
  GnnOptions o = CoraOptions();
  auto sc = testing::Parse(testing::Scenario("{file: tiny.txt, num_nodes: 1000000}"));
  ASSERT_TRUE(sc.ok()) << sc.error().message;
  o.graph = sc->options.graph;  // a million nodes (six edges)
  o.features.dim = 1 << 16;     // 256 KiB per node: 79 GiB hold 323,584 of them
  o.hardware.gpus_per_machine = 1;
  o.cache.gpu_gib = 79;
  const GnnResult r = SimulateOk(o);
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("GPU memory"), std::string::npos) << r.reason;
}

TEST(GnnSimulateTest, CompareRunsEveryVariant) {
  auto r = Compare(CoraOptions(), DefaultVariants(), testing::Catalogs());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].cache_policy, "none");
  EXPECT_EQ((*r)[3].partitioner, "bgl");
  EXPECT_EQ((*r)[3].stages.size(), 4u);  // isolation splits sampling and gathering
  EXPECT_EQ((*r)[0].stages.size(), 3u);
}

TEST(GnnSimulateTest, StageTimesFollowTheirFormulas) {
  GnnOptions o = CoraOptions();
  o.hardware.machines = 1;  // no remote requests: sampling is CPU work only
  o.pipeline.isolation = true;
  o.hardware.cpu_cores = 8;
  const GnnResult r = SimulateOk(o);
  ASSERT_EQ(r.stages.size(), 4u);
  const StageResult& sample = r.stages[0];
  ASSERT_EQ(sample.name, "sample");
  // busy = sampled edges x 50 ns / sampling cores (each batch rounded to the nanosecond).
  const double edges = r.sampled_edges_per_batch * static_cast<double>(r.batches);
  EXPECT_NEAR(sample.busy.ToSeconds(), edges * 50e-9 / sample.cores, 1e-9 * static_cast<double>(r.batches));
  EXPECT_EQ(sample.cores + r.stages[1].cores, 8);
  // Pipelined, the epoch lies between the busiest stage and the sum of all stages.
  Duration sum, busiest;
  for (const StageResult& s : r.stages) {
    sum += s.busy;
    busiest = std::max(busiest, s.busy);
  }
  EXPECT_GE(r.epoch, busiest);
  EXPECT_LE(r.epoch, sum);
  // Unpipelined, it is the sum exactly.
  o.pipeline.pipelined = false;
  const GnnResult serial = SimulateOk(o);
  Duration serial_sum;
  for (const StageResult& s : serial.stages) serial_sum += s.busy;
  EXPECT_EQ(serial.epoch, serial_sum);
}

}  // namespace
}  // namespace dlsim::gnn
