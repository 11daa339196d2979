// Disk-based and topology-cached training end to end: page counts in closed form, the topology
// cache removing list reads, the page cache bound, CaliEX's split search, Ginex's Belady cache and
// AliGraph's remote-list cache; and the bad inputs of the new keys.
#include <gtest/gtest.h>

#include <algorithm>

#include "dlsim/gnn/simulate.h"
#include "gnn_test_env.h"

namespace dlsim::gnn {
namespace {

const char* kDisk =
    "  features: {dim: 256}\n"
    "  split: {train: 0.3}\n"
    "  sampler: {fanouts: [10, 5]}\n"
    "  batch: {size: 128}\n"
    "  hardware: {node: dgx-a100, gpus_per_machine: 1}\n"
    "  store: disk\n"
    "  cache: {policy: none, gpu_gib: 0}\n";

GnnOptions Options(const std::string& extra,
                   const std::string& graph = "{rmat: {scale: 12, edge_factor: 8}}") {
  auto sc = testing::Parse(testing::Scenario(graph, kDisk + extra));
  EXPECT_TRUE(sc.ok()) << sc.error().message;
  return sc.ok() ? sc->options : GnnOptions{};
}

GnnResult SimulateOk(const GnnOptions& o) {
  auto r = Simulate(o, testing::Catalogs(), nullptr);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : GnnResult{};
}

double Pages(const GnnResult& r) { return r.disk_pages_per_batch * static_cast<double>(r.batches); }

TEST(GnnDiskTest, UncachedReadsAreListPagesPlusOnePagePerRow) {
  const GnnResult r = SimulateOk(Options("  topology: {store: disk}\n"));
  EXPECT_GT(r.topology_pages_per_batch, 0);
  // 1 KiB rows: one page each, every read from the disk.
  EXPECT_NEAR(r.disk_pages_per_batch, r.topology_pages_per_batch + r.input_nodes_per_batch, 1e-9);
  EXPECT_EQ(r.topology_hit_ratio, 0);
  bool has_disk_stage = false;
  for (const StageResult& s : r.stages) has_disk_stage |= s.name == "disk";
  EXPECT_TRUE(has_disk_stage);
}

TEST(GnnDiskTest, ATopologyCacheOfEveryListReadsNoListPage) {
  const GnnResult r = SimulateOk(Options("  topology: {store: disk, cache: degree, cache_gib: 1}\n"));
  EXPECT_EQ(r.topology_pages_per_batch, 0);
  EXPECT_EQ(r.topology_hit_ratio, 1);
  EXPECT_EQ(r.topology_cache_lists, r.nodes);
}

TEST(GnnDiskTest, APageCacheOfBothFilesReadsEveryPageAtMostOnce) {
  GnnOptions big = Options("  topology: {store: disk}\n  disk: {page_cache: true, memory_gib: 1}\n");
  const GnnResult all = SimulateOk(big);
  const double file_pages = std::ceil(static_cast<double>(all.edges) * 4 / 4096) +
                            std::ceil(static_cast<double>(all.nodes) * 1024 / 4096);
  EXPECT_LE(Pages(all), file_pages);
  EXPECT_EQ(all.cache_policy, "page-cache");
  GnnOptions small = big;
  small.disk.memory_gib = 0.001;  // 256 pages
  EXPECT_GT(Pages(SimulateOk(small)), Pages(all));
}

TEST(GnnDiskTest, TheSplitSearchPicksTheFewestPredictedPages) {
  GnnOptions o = Options(
      "  topology: {store: disk, cache: frequency}\n  disk: {memory_gib: 0.002, topology_share: auto}\n");
  o.cache.policy = "frequency";
  const GnnResult r = SimulateOk(o);
  ASSERT_EQ(r.split_curve.size(), 21u);
  const auto best = std::min_element(r.split_curve.begin(), r.split_curve.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_EQ(r.topology_share, best->first);
  EXPECT_GT(r.topology_share, 0);  // both caches matter on this graph
  EXPECT_LT(r.topology_share, 1);
  // Measured on the real epoch, the chosen split is no worse than giving everything to one cache.
  for (double share : {0.0, 1.0}) {
    o.disk.topology_share = share;
    EXPECT_LE(Pages(r), Pages(SimulateOk(o)) * 1.02) << share;
  }
}

TEST(GnnDiskTest, BeladyOverTheWholeEpochHitsAtLeastAsOftenAsLru) {
  GnnOptions o = Options("");
  o.cache = {.policy = "lru", .gpu_gib = 0, .host_gib = 0.001};
  const GnnResult lru = SimulateOk(o);
  o.cache.policy = "belady";
  o.disk.superbatch = 4096;  // every batch announced: Belady is optimal
  const GnnResult belady = SimulateOk(o);
  EXPECT_GE(belady.host_hit_ratio, lru.host_hit_ratio);
  EXPECT_GT(belady.host_hit_ratio, 0);
  o.disk.superbatch = 1;  // one batch of foresight: still a valid cache, fewer hits at most
  EXPECT_LE(SimulateOk(o).host_hit_ratio, belady.host_hit_ratio);
}

TEST(GnnDiskTest, AliGraphCachesRemoteListsAndRemovesTheirRequests) {
  GnnOptions o = Options("  topology: {cache: importance, cache_gib: 1, tau: 0}\n",
                         "{rmat: {scale: 12, edge_factor: 8}, directed: true}");
  o.hardware.machines = 2;
  o.store = FeatureStore::kPartitioned;
  const GnnResult cached = SimulateOk(o);
  EXPECT_EQ(cached.remote_requests_per_batch, 0);
  EXPECT_EQ(cached.topology_hit_ratio, 1);
  o.topology.cache = "none";
  const GnnResult plain = SimulateOk(o);
  EXPECT_GT(plain.remote_requests_per_batch, 0);
  EXPECT_LT(cached.epoch, plain.epoch);
  // A threshold keeps fewer lists: some requests stay.
  o.topology.cache = "importance";
  o.topology.tau = 2;
  const GnnResult some = SimulateOk(o);
  EXPECT_GT(some.remote_requests_per_batch, 0);
  EXPECT_LT(some.remote_requests_per_batch, plain.remote_requests_per_batch);
  EXPECT_LT(some.topology_cache_bytes, cached.topology_cache_bytes);
}

std::string ErrorOf(const std::string& extra) {
  auto sc = testing::Parse(testing::Scenario("{rmat: {scale: 8}}", extra));
  if (!sc.ok()) return sc.error().message;
  auto r = Simulate(sc->options, testing::Catalogs(), nullptr);
  return r.ok() ? "" : r.error().message;
}

TEST(GnnDiskTest, BadInputsSayWhy) {
  EXPECT_NE(ErrorOf("  hardware: {machines: 2}\n  topology: {store: disk}\n").find("one machine"),
            std::string::npos);
  EXPECT_NE(ErrorOf("  disk: {memory_gib: 1}\n").find("on the disk"), std::string::npos);
  EXPECT_NE(ErrorOf("  disk: {page_cache: true}\n").find("on the disk"), std::string::npos);
  EXPECT_NE(ErrorOf("  store: disk\n  disk: {topology_share: 1.5}\n").find("topology_share"),
            std::string::npos);
  EXPECT_NE(ErrorOf("  topology: {hops: 3}\n").find("hops"), std::string::npos);
  EXPECT_NE(ErrorOf("  topology: {cache: importanse}\n").find("did you mean 'importance'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("  topology: {store: tape}\n").find("topology.store"), std::string::npos);
}

// Hostile sizes: refused with the reason, before any memory or time is spent.
TEST(GnnDiskTest, HostileSizesAreRefused) {
  auto huge = testing::Parse(testing::Scenario("{rmat: {scale: 30, edge_factor: 1024}}"));
  ASSERT_TRUE(huge.ok()) << huge.error().message;
  auto r = Simulate(huge->options, testing::Catalogs(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("GiB"), std::string::npos) << r.error().message;
  EXPECT_NE(ErrorOf("  sampler: {name: random-walk, walks: 1024, walk_length: 16}\n").find("at most 4096"),
            std::string::npos);
  EXPECT_NE(ErrorOf("  sampler: {walks: 65536}\n").find("1..1024"), std::string::npos);
  EXPECT_NE(ErrorOf("  cache: {gpu_gib: 0}\n  hardware: {machines: 4096}\n").find("hardware.machines"),
            std::string::npos);
}

}  // namespace
}  // namespace dlsim::gnn
