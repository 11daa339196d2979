// Online GNN inference: the edge stream, the sample stores, on-demand sampling and Helios.
#include <gtest/gtest.h>

#include <algorithm>

#include "dlsim/gnn/online/online_serving.h"
#include "dlsim/gnn/rmat.h"

namespace dlsim::gnn {
namespace {

SampleStoreRegistry Stores() {
  SampleStoreRegistry r("online-sampler");
  RegisterSampleStores(r);
  return r;
}

Result<OnlineResult> RunServing(const std::string& name, int64_t nodes, const std::vector<StreamEdge>& s,
                                const OnlineOptions& o) {
  OnlineServingRegistry reg("online-serving");
  RegisterOnlineServing(reg);
  return reg.Create(name).value()->Run(nodes, s, o, Stores());
}

TEST(OnlineStreamTest, EachUndirectedPairOnceInTimeOrder) {
  EdgeList e;
  e.num_nodes = 4;
  e.src = {0, 1, 2, 2, 3};
  e.dst = {1, 0, 3, 2, 0};  // 0-1 twice, a self-loop
  const auto s = ReplayEdges(e, 1e6, 7);
  ASSERT_EQ(s.size(), 3u);
  for (size_t i = 1; i < s.size(); ++i) EXPECT_LE(s[i - 1].t_ns, s[i].t_ns);
  EXPECT_EQ(ReplayEdges(e, 1e6, 7)[0].t_ns, s[0].t_ns);  // deterministic
  const auto big = ReplayEdges(GenerateRmat({.scale = 10, .edge_factor = 8}).value(), 1e6, 1);
  const double mean_gap_ns = static_cast<double>(big.back().t_ns) / static_cast<double>(big.size());
  EXPECT_NEAR(mean_gap_ns, 1000, 50);  // Poisson at 1e6 per second
}

TEST(OnlineSamplerTest, TopKKeepsTheMostRecent) {
  auto store = Stores().Create("top-k", 2, 3).value();
  Rng rng(1);
  for (NodeId u : {1, 1, 1}) EXPECT_TRUE(store->Insert(0, u, rng).changed);
  store = Stores().Create("top-k", 8, 3).value();
  for (NodeId u = 1; u <= 3; ++u) EXPECT_FALSE(store->Insert(0, u, rng).evicted);
  const SampleChange c = store->Insert(0, 4, rng);
  ASSERT_TRUE(c.evicted);
  EXPECT_EQ(*c.evicted, 1u);
  const auto s = store->Sample(0);
  EXPECT_EQ(std::vector<NodeId>(s.begin(), s.end()), (std::vector<NodeId>{4, 3, 2}));
}

TEST(OnlineSamplerTest, ReservoirIsUniformOverTheStream) {
  // 40 neighbours offered, 8 kept: each is kept with probability 0.2.
  std::vector<int> kept(40, 0);
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    auto store = Stores().Create("reservoir", 1, 8).value();
    Rng rng(seed);
    for (NodeId u = 0; u < 40; ++u) store->Insert(0, u, rng);
    for (NodeId u : store->Sample(0)) ++kept[u];
  }
  for (int k : kept) EXPECT_NEAR(k / 2000.0, 0.2, 0.04);
}

TEST(OnlineServingTest, HeliosKeepingEveryNeighbourAnswersAsOnDemandSampling) {
  const EdgeList e = GenerateRmat({.scale = 8, .edge_factor = 6}).value();
  const auto stream = ReplayEdges(e, 1e6, 3);
  OnlineOptions o;
  o.fanouts = {100000, 100000};  // above every degree: both take every neighbour
  o.sampler = "all";
  o.queries = 200;
  o.query_start_ns = stream.back().t_ns + 1;  // the snapshot after the last edge
  o.record_answers = true;
  const OnlineResult h = RunServing("helios", e.num_nodes, stream, o).value();
  const OnlineResult d = RunServing("on-demand", e.num_nodes, stream, o).value();
  ASSERT_EQ(h.answers.size(), 200u);
  ASSERT_EQ(d.answers.size(), 200u);
  size_t nonempty = 0;
  for (size_t q = 0; q < 200; ++q) {
    EXPECT_EQ(h.answers[q], d.answers[q]) << q;
    nonempty += h.answers[q].empty() ? 0 : 1;
  }
  EXPECT_GT(nonempty, 100u);
}

TEST(OnlineServingTest, ClosedFormLatencyOfOneQuery) {
  // A star: the query's seed (the hub, id 0) has 9 neighbours; one hop of fanout 4, one worker.
  EdgeList e;
  e.num_nodes = 10;
  for (NodeId v = 1; v < 10; ++v) e.src.push_back(0), e.dst.push_back(v);
  const auto stream = ReplayEdges(e, 1e6, 1);
  OnlineOptions o;
  o.fanouts = {4};
  o.workers = 1;
  o.queries = 1;
  o.query_start_ns = stream.back().t_ns + 1'000'000;  // long after the updates drained
  for (uint64_t seed = 1;; ++seed) {                  // a seed whose query asks for the hub
    o.seed = seed;
    OnlineOptions probe = o;
    probe.record_answers = true;
    if (RunServing("helios", 10, stream, probe).value().answers[0].size() == 4) break;
  }
  const OnlineResult d = RunServing("on-demand", 10, stream, o).value();
  // Both: the client's round trip (2 x 50 us). On-demand adds a round trip to the owner, the request,
  // the scan of 9 edges and 4 draws; Helios one cached sample read.
  EXPECT_DOUBLE_EQ(d.latency_us.p99, 100 + (2 * 50e3 + 2000 + 9 * 20 + 4 * 50) * 1e-3);
  const OnlineResult h = RunServing("helios", 10, stream, o).value();
  EXPECT_DOUBLE_EQ(h.latency_us.p99, 100 + 100 * 1e-3);
  EXPECT_DOUBLE_EQ(h.latency_us.p50, h.latency_us.p99);
}

TEST(OnlineServingTest, HeliosCutsTheTailUnderLoad) {
  const EdgeList e = GenerateRmat({.scale = 12, .edge_factor = 8}).value();
  const auto stream = ReplayEdges(e, 2e5, 5);  // the ~30K edges span the 150 ms of queries
  OnlineOptions o;
  o.queries = 3000;
  o.query_rate_per_s = 20000;
  const OnlineResult h = RunServing("helios", e.num_nodes, stream, o).value();
  const OnlineResult d = RunServing("on-demand", e.num_nodes, stream, o).value();
  // On-demand pays two more round trips and the owners' queues; Helios stays near the client's round
  // trip (100 us) while absorbing the stream's pushes.
  EXPECT_LT(h.latency_us.p99 * 3, d.latency_us.p99);
  EXPECT_LT(h.latency_us.p99, 110);
  EXPECT_GT(h.messages, d.messages);  // the price: pushes on every sample change
  EXPECT_GT(h.staleness_ms.p50, 0);
  EXPECT_GT(h.cache_bytes, 0);
}

TEST(OnlineServingTest, BadOptions) {
  const auto stream = ReplayEdges(GenerateRmat({.scale = 6}).value(), 1e6, 1);
  OnlineOptions o;
  o.fanouts = {2, 2, 2};
  EXPECT_FALSE(RunServing("helios", 64, stream, o).ok());  // Helios: 1 or 2 hops
  EXPECT_TRUE(RunServing("on-demand", 64, stream, o).ok());
  o.fanouts = {0};
  EXPECT_FALSE(RunServing("on-demand", 64, stream, o).ok());
  o.fanouts = {5};
  o.sampler = "newest";
  EXPECT_FALSE(RunServing("helios", 64, stream, o).ok());
  o.sampler = "top-k";
  o.insert_ns = 0;
  EXPECT_FALSE(RunServing("helios", 64, stream, o).ok());
}

}  // namespace
}  // namespace dlsim::gnn
