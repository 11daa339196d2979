// The per-tensor timeline and the option prices, in closed form.
#include "dlsim/studies/compress/timeline.h"

#include <gtest/gtest.h>

namespace dlsim::compress {
namespace {

GradientTensor Tensor(double elements, double gap_ms) {
  GradientTensor t;
  t.name = "t";
  t.elements = elements;
  t.backward_gap = Millis(gap_ms);
  return t;
}

TEST(Timeline, TwoTensorsOverlapCommunicationWithCompute) {
  // t0 ready at 10 ms, its 5 ms collective ends at 15; t1 ready at 12 waits for the stream: 15-20.
  const std::vector<GradientTensor> tensors = {Tensor(1, 10), Tensor(1, 2)};
  const StepList a = {{Resource::kGpuComm, Millis(5)}}, b = {{Resource::kGpuComm, Millis(5)}};
  const Timeline tl = Simulate(tensors, {&a, &b}, Millis(4));
  EXPECT_EQ(tl.tensors[0].done, Millis(15));
  EXPECT_EQ(tl.tensors[1].ready, Millis(12));
  EXPECT_EQ(tl.tensors[1].done, Millis(20));
  EXPECT_FALSE(tl.tensors[1].bubble_before);
  EXPECT_EQ(tl.last_bubble, 0);
  EXPECT_EQ(tl.iteration, Millis(24));  // forward + last done
  // Overlap = busy communication inside the backward window: 12 - 10 = 2 ms of t0's 5.
}

TEST(Timeline, GpuCompressionDelaysBackwardAndABubbleIsSeen) {
  // t0 compresses on the compute stream for 3 ms before its 1 ms collective: t1's gradient (2 ms of
  // compute) is ready at 10 + 3 + 2 = 15, after t0's communication ended at 14: a bubble.
  const std::vector<GradientTensor> tensors = {Tensor(1, 10), Tensor(1, 2)};
  const StepList a = {{Resource::kCompute, Millis(3)}, {Resource::kGpuComm, Millis(1)}};
  const StepList b = {{Resource::kGpuComm, Millis(1)}, {Resource::kCpu, Millis(4)}};
  const Timeline tl = Simulate(tensors, {&a, &b}, Duration::Zero());
  EXPECT_EQ(tl.tensors[0].done, Millis(14));
  EXPECT_EQ(tl.tensors[1].ready, Millis(15));
  EXPECT_TRUE(tl.tensors[1].bubble_before);
  EXPECT_EQ(tl.last_bubble, 1);
  EXPECT_EQ(tl.tensors[1].done, Millis(20));
  EXPECT_EQ(tl.backward_end, Millis(15));
  EXPECT_EQ(tl.iteration, Millis(20));
  EXPECT_EQ(tl.busy[static_cast<int>(Resource::kCpu)], Millis(4));
}

class PriceTest : public ::testing::Test {
 protected:
  PriceTest() {
    bed_.nodes = 2;
    bed_.gpus_per_node = 1;
    bed_.intra_bw = GBps(10);
    bed_.nic_bw = GBps(1);
    bed_.alpha = Micros(100);
    comp_.ratio = 0.25;
    comp_.gpu = {{Micros(10), GBps(4)}, {Micros(10), GBps(8)}};
    comp_.cpu = {{Micros(10), GBps(1)}, {Micros(10), GBps(1)}};
    net::CollectiveRegistry reg("collective-model");
    net::RegisterCollectiveModels(reg);
    auto created = reg.Create("ideal", net::NetworkCalibration{});
    model_ = std::move(*created);
  }
  Testbed bed_;
  CompressorSpec comp_;
  std::unique_ptr<net::CollectiveModel> model_;
};

TEST_F(PriceTest, FlatAllReduceIsAlphaPlusRingTime) {
  // 2 ranks on 2 machines: 2 (n-1)/n s / bw = 400 MB / 1 GB/s = 400 ms, plus alpha 0.1 ms.
  const CostModel cost(bed_, comp_, *model_);
  Option ar;
  ar.ops = {{.kind = OpKind::kComm, .routine = Routine::kAllReduce}};
  const StepList s = cost.Price(Tensor(1e8, 0), ar);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].resource, Resource::kGpuComm);
  EXPECT_NEAR(s[0].time.ToMillis(), 400.1, 1e-6);
}

TEST_F(PriceTest, CompressedAllGatherDecompressesEveryPiece) {
  // gpu-comp (400 MB / 4 GB/s = 100 ms, on compute) | AG* of 2 x 100 MB output (1 ms alpha... ) |
  // gpu-decomp of 2 pieces of 400 MB at 8 GB/s = 100 ms, on the communication stream.
  const CostModel cost(bed_, comp_, *model_);
  Option o;
  o.ops = {{.kind = OpKind::kCompress},
           {.kind = OpKind::kComm, .routine = Routine::kAllGather, .compressed = true},
           {.kind = OpKind::kDecompress}};
  const StepList s = cost.Price(Tensor(1e8, 0), o);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].resource, Resource::kCompute);
  EXPECT_NEAR(s[0].time.ToMillis(), 100, 1e-6);
  // all-gather output 200 MB, (n-1)/n of it over the 1 GB/s link: 100 ms + alpha.
  EXPECT_NEAR(s[1].time.ToMillis(), 100.1, 1e-6);
  EXPECT_EQ(s[2].resource, Resource::kGpuComm);
  EXPECT_NEAR(s[2].time.ToMillis(), 100, 1e-6);
}

TEST_F(PriceTest, SmallPassesCostTheirFloor) {
  EXPECT_EQ(comp_.gpu.compress.Time(ByteCount(4)), Micros(10));
  EXPECT_EQ(comp_.gpu.compress.Time(GB(4)), Seconds(1));
}

}  // namespace
}  // namespace dlsim::compress
