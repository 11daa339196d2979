#include "dlsim/net/collective.h"

#include <gtest/gtest.h>

#include <memory>

namespace dlsim::net {
namespace {

std::unique_ptr<CollectiveModel> Make(const std::string& name, const NetworkCalibration& cal = {}) {
  CollectiveRegistry reg("collective");
  RegisterCollectiveModels(reg);
  auto m = reg.Create(name, cal);
  EXPECT_TRUE(m.ok()) << name;
  return std::move(m).value();
}

// 100 GB/s NVLink, 1 us per hop; 25 GB/s per GPU NIC share, 5 us.
Fabric TestFabric() {
  Fabric f;
  f.intra_bw = GBps(100);
  f.inter_bw_per_gpu = GBps(25);
  f.intra_latency = Micros(1);
  f.inter_latency = Micros(5);
  f.architecture = "hopper";
  return f;
}

Fabric H100() {
  Fabric f = TestFabric();
  f.intra_bw = GBps(450);
  f.inter_bw_per_gpu = GBps(50);
  f.nvls = true;
  return f;
}

TEST(IdealModel, RingAllReduceClosedForm) {
  auto m = Make("ideal");
  // 8 ranks, 1 GB: 2*7/8 * 1e9 B / 100e9 B/s = 17.5 ms, plus 2*7 steps of 1 us.
  const Duration t = m->Time(Collective::kAllReduce, GB(1), {8, 8}, TestFabric());
  EXPECT_EQ(t.ToNanos(), 17'500'000 + 14'000);
}

TEST(IdealModel, RingAcrossNodesUsesSlowerOfNvlinkAndNics) {
  auto m = Make("ideal");
  // 4 nodes x 1 rank: one NIC share each (25 GB/s), 5 us per step.
  const Duration one_per_node = m->Time(Collective::kAllReduce, GB(1), {4, 1}, TestFabric());
  EXPECT_EQ(one_per_node.ToNanos(), 60'000'000 + 30'000);  // 2*3/4 * 1e9 / 25e9 s + 6 * 5 us
  // 2 nodes x 8 ranks: 8 NIC shares = 200 GB/s > NVLink 100 GB/s, so NVLink bounds the ring.
  const Duration two_nodes = m->Time(Collective::kAllReduce, GB(1), {16, 8}, TestFabric());
  EXPECT_EQ(two_nodes.ToNanos(), 18'750'000 + 30 * 5'000);
}

TEST(IdealModel, ReduceScatterPlusAllGatherEqualsAllReduce) {
  auto m = Make("ideal");
  for (int n : {2, 3, 8}) {
    const Bytes s = MiB(96);
    const Duration rs = m->Time(Collective::kReduceScatter, s, {n, n}, TestFabric());
    const Duration ag = m->Time(Collective::kAllGather, s, {n, n}, TestFabric());
    const Duration ar = m->Time(Collective::kAllReduce, s, {n, n}, TestFabric());
    EXPECT_NEAR(static_cast<double>((rs + ag).ToNanos()), static_cast<double>(ar.ToNanos()), 1.0) << n;
  }
}

TEST(IdealModel, SendRecvAndBroadcast) {
  auto m = Make("ideal");
  EXPECT_EQ(m->Time(Collective::kSendRecv, GB(1), {2, 2}, TestFabric()).ToNanos(), 10'000'000 + 1'000);
  EXPECT_EQ(m->Time(Collective::kSendRecv, GB(1), {2, 1}, TestFabric()).ToNanos(), 40'000'000 + 5'000);
  EXPECT_EQ(m->Time(Collective::kBroadcast, GB(1), {4, 4}, TestFabric()).ToNanos(), 10'000'000 + 3'000);
}

TEST(IdealModel, AllToAllSplitsIntraAndInterTraffic) {
  auto m = Make("ideal");
  // One node of 8: 7/8 of 8 GB over 100 GB/s.
  EXPECT_EQ(m->Time(Collective::kAllToAll, GB(8), {8, 8}, TestFabric()).ToNanos(), 70'000'000 + 1'000);
  // 16 ranks on 2 nodes: 8/16 of 8 GB leaves the node over 25 GB/s (160 ms), 7/16 over NVLink
  // (35 ms) in parallel; the NIC bounds it.
  EXPECT_EQ(m->Time(Collective::kAllToAll, GB(8), {16, 8}, TestFabric()).ToNanos(), 160'000'000 + 5'000);
}

TEST(AllModels, SingleRankOrEmptyTakesNoTime) {
  for (const char* name : {"nccl", "ring", "tree", "ideal"}) {
    auto m = Make(name);
    for (Collective c : {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather,
                         Collective::kAllToAll, Collective::kBroadcast, Collective::kSendRecv}) {
      EXPECT_EQ(m->Time(c, GB(1), {1, 1}, H100()), Duration::Zero()) << name << " " << CollectiveName(c);
      EXPECT_EQ(m->Time(c, Bytes(0), {8, 8}, H100()), Duration::Zero()) << name;
    }
  }
}

TEST(AllModels, MonotonicInSize) {
  for (const char* name : {"nccl", "ring", "tree", "ideal"}) {
    auto m = Make(name);
    for (GroupLayout g : {GroupLayout{8, 8}, GroupLayout{16, 8}, GroupLayout{64, 8}, GroupLayout{4, 1}}) {
      for (Collective c : {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather,
                           Collective::kAllToAll, Collective::kBroadcast, Collective::kSendRecv}) {
        Duration prev = Duration::Zero();
        for (double s = 1024; s <= 4e9; s *= 1.7) {
          const Duration t = m->Time(c, ByteCount(s), g, H100());
          EXPECT_GE(t, prev) << name << " " << CollectiveName(c) << " n=" << g.size << " s=" << s;
          prev = t;
        }
      }
    }
  }
}

TEST(NcclModel, CrossingNodesIsSlowerThanNvlinkOnly) {
  auto m = Make("nccl");
  for (double mb : {1.0, 64.0, 1024.0}) {
    const Duration one_node = m->Time(Collective::kAllReduce, MB(mb), {8, 8}, H100());
    const Duration two_nodes = m->Time(Collective::kAllReduce, MB(mb), {16, 8}, H100());
    EXPECT_GT(two_nodes, one_node) << mb;
  }
}

TEST(NcclModel, NvlsBeatsRingOnEightHoppers) {
  auto nccl = Make("nccl");
  auto ring = Make("ring");
  const Duration with_nvls = nccl->Time(Collective::kAllReduce, GB(1), {8, 8}, H100());
  EXPECT_LT(with_nvls, ring->Time(Collective::kAllReduce, GB(1), {8, 8}, H100()));
  Fabric no_nvls = H100();
  no_nvls.nvls = false;
  EXPECT_EQ(nccl->Time(Collective::kAllReduce, GB(1), {8, 8}, no_nvls),
            ring->Time(Collective::kAllReduce, GB(1), {8, 8}, no_nvls));
}

TEST(NcclModel, TreeWinsForSmallMessagesOnManyNodes) {
  auto nccl = Make("nccl");
  auto ring = Make("ring");
  auto tree = Make("tree");
  const GroupLayout many{512, 8};
  const Duration small_tree = tree->Time(Collective::kAllReduce, KiB(64), many, H100());
  EXPECT_LT(small_tree, ring->Time(Collective::kAllReduce, KiB(64), many, H100()));
  EXPECT_LE(nccl->Time(Collective::kAllReduce, KiB(64), many, H100()), small_tree);
}

TEST(NcclModel, OversubscriptionSlowsInterNodeTraffic) {
  auto m = Make("nccl");
  Fabric over = H100();
  over.oversubscription = 2.0;
  EXPECT_GT(m->Time(Collective::kAllGather, GB(1), {64, 8}, over),
            m->Time(Collective::kAllGather, GB(1), {64, 8}, H100()));
}

TEST(Registry, UnknownNameListsModels) {
  CollectiveRegistry reg("collective");
  RegisterCollectiveModels(reg);
  auto m = reg.Create("ncll", NetworkCalibration{});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, ErrorCode::kNotFound);
  EXPECT_NE(m.error().message.find("nccl"), std::string::npos) << m.error().message;
  EXPECT_EQ(reg.Names(), (std::vector<std::string>{"ideal", "nccl", "ring", "tree"}));
}

TEST(Collective, NamesRoundTrip) {
  for (Collective c : {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather,
                       Collective::kAllToAll, Collective::kBroadcast, Collective::kSendRecv}) {
    EXPECT_EQ(ParseCollective(CollectiveName(c)), c);
  }
  EXPECT_FALSE(ParseCollective("allreduce").has_value());
}

TEST(MakeFabric, DgxH100) {
  hw::GpuSpec gpu;
  gpu.architecture = "hopper";
  gpu.nvlink_bandwidth = GBps(450);
  gpu.nvls = true;
  hw::NodeSpec node;
  node.gpus_per_node = 8;
  node.fabric = hw::IntraNodeFabric::kNvSwitch;
  hw::NetworkSpec net;
  net.latency = Micros(2);
  net.oversubscription = 1.0;
  const Fabric f = MakeFabric(gpu, node, net, 8, Gbps(400));
  EXPECT_DOUBLE_EQ(f.intra_bw.ToGBps(), 450);
  EXPECT_DOUBLE_EQ(f.inter_bw_per_gpu.ToGBps(), 50);
  EXPECT_TRUE(f.nvls);
  EXPECT_FALSE(f.pcie_only);
  EXPECT_EQ(f.inter_latency, Micros(2));
  EXPECT_EQ(f.architecture, "hopper");
  // Four 200 Gb/s NICs shared by eight GPUs.
  EXPECT_DOUBLE_EQ(MakeFabric(gpu, node, net, 4, Gbps(200)).inter_bw_per_gpu.ToGBps(), 12.5);
}

}  // namespace
}  // namespace dlsim::net
