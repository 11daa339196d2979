#include "dlsim/train/step_sim.h"

#include <gtest/gtest.h>

namespace dlsim::train {
namespace {

StepProgram Uniform(const std::string& schedule, int p, int v, int m, Duration f, Duration b) {
  PipelineScheduleRegistry reg("pipeline-schedule");
  RegisterPipelineSchedules(reg);
  StepProgram prog;
  prog.shape = {p, v, m};
  prog.orders = {*(*reg.Create(schedule))->Order(prog.shape)};
  prog.task_cost = [f, b](int, int, const PipeTask& t) {
    TaskCost c;
    c.compute = t.forward ? f : b;
    return c;
  };
  return prog;
}

// 1F1B with uniform stage times: step = (m + p - 1)(f + b); bubble fraction (p-1)/(m+p-1).
TEST(StepSimTest, OneFOneBBubbleClosedForm) {
  for (int p : {2, 4, 8}) {
    for (int m : {1, 4, 16}) {
      const Duration f = Micros(100), b = Micros(200);
      StepTimeline t = SimulateStep(Uniform("1f1b", p, 1, m, f, b), nullptr);
      EXPECT_EQ(t.step_time, (f + b) * static_cast<int64_t>(m + p - 1)) << "p=" << p << " m=" << m;
      const double bubble = t.ranks[0].bubble / t.step_time;
      EXPECT_NEAR(bubble, double(p - 1) / (m + p - 1), 1e-9);
    }
  }
}

// Interleaved with v chunks: a micro-batch costs F + B = v (f_c + b_c) per rank and the
// bubble shrinks to (p-1)(F+B)/v = (p-1)(f_c + b_c).
TEST(StepSimTest, InterleavedBubbleClosedForm) {
  for (int v : {2, 3, 4}) {
    const int p = 4, m = 8;
    const Duration fc = Micros(100), bc = Micros(200);
    StepTimeline t = SimulateStep(Uniform("interleaved", p, v, m, fc, bc), nullptr);
    const Duration expected =
        (fc + bc) * static_cast<int64_t>(m * v) + (fc + bc) * static_cast<int64_t>(p - 1);
    EXPECT_EQ(t.step_time, expected) << "v=" << v;
  }
}

TEST(StepSimTest, GpipeStepTime) {
  const int p = 4, m = 8;
  const Duration f = Micros(100), b = Micros(200);
  StepTimeline t = SimulateStep(Uniform("gpipe", p, 1, m, f, b), nullptr);
  EXPECT_EQ(t.step_time, (f + b) * static_cast<int64_t>(m + p - 1));
  EXPECT_EQ(t.ranks[0].peak_in_flight, m);
}

TEST(StepSimTest, OneFOneBHoldsAtMostPMicroBatches) {
  StepTimeline t = SimulateStep(Uniform("1f1b", 4, 1, 16, Micros(1), Micros(2)), nullptr);
  EXPECT_EQ(t.ranks[0].peak_in_flight, 4);
  EXPECT_EQ(t.ranks[3].peak_in_flight, 1);
}

// Interleaved 1F1B (p 4, v 2, m 8): the last rank warms up with micro-batches 0-3 of its first chunk and
// runs each micro-batch of its last chunk (the output head's) forward then backward, so it holds 4 + 1; a
// heavy last chunk is held once, not peak_in_flight / v = 2.5 times.
TEST(StepSimTest, InterleavedHoldsTheLastChunkOnceOnTheLastRank) {
  StepProgram prog = Uniform("interleaved", 4, 2, 8, Micros(10), Micros(20));
  prog.activation_bytes.assign(4, {1.0, 1.0});
  prog.activation_bytes[3][1] = 100.0;
  StepTimeline t = SimulateStep(prog, nullptr);
  EXPECT_EQ(t.ranks[3].peak_in_flight, 5);
  EXPECT_EQ(t.ranks[3].peak_in_flight_by_chunk, (std::vector<int>{4, 1}));
  // With even chunks the split at the peak adds up to the peak count; the first rank holds chunk 0 most.
  const StepTimeline even = SimulateStep(Uniform("interleaved", 4, 2, 8, Micros(10), Micros(20)), nullptr);
  for (const RankTimeline& r : even.ranks) {
    ASSERT_EQ(r.peak_in_flight_by_chunk.size(), 2u);
    EXPECT_EQ(r.peak_in_flight_by_chunk[0] + r.peak_in_flight_by_chunk[1], r.peak_in_flight);
  }
  EXPECT_GT(even.ranks[0].peak_in_flight_by_chunk[0], even.ranks[0].peak_in_flight_by_chunk[1]);
}

TEST(StepSimTest, P2pDelaysAddPerHop) {
  StepProgram prog = Uniform("1f1b", 2, 1, 1, Micros(10), Micros(20));
  prog.p2p = Micros(5);
  StepTimeline t = SimulateStep(prog, nullptr);
  // F on rank 0, send, F+B on rank 1, send, B on rank 0.
  EXPECT_EQ(t.step_time, Micros(10 + 5 + 10 + 20 + 5 + 20));
}

// p2p_time prices each transfer by the stage it leaves and its direction (heterogeneous stages, issue 15).
TEST(StepSimTest, PerTransferP2pTimes) {
  StepProgram prog = Uniform("1f1b", 2, 1, 1, Micros(10), Micros(20));
  prog.p2p = Micros(1000);  // ignored once p2p_time is set
  prog.p2p_time = [](int, int from_vs, int, bool forward) {
    EXPECT_EQ(from_vs, forward ? 0 : 1);
    return forward ? Micros(5) : Micros(7);
  };
  StepTimeline t = SimulateStep(prog, nullptr);
  EXPECT_EQ(t.step_time, Micros(10 + 5 + 10 + 20 + 7 + 20));
}

TEST(StepSimTest, GradReductionOverlapsBackward) {
  StepProgram prog = Uniform("1f1b", 1, 1, 2, Micros(10), Micros(20));
  prog.buckets = {{GradBucket{0, 0.5, Micros(15)}, GradBucket{0, 1.0, Micros(15)}}};
  prog.optimizer = {Micros(7)};
  StepTimeline t = SimulateStep(prog, nullptr);
  // Last backward runs 40..60; bucket 1 ready at 50, runs 50..65; bucket 2 65..80; optimizer 80..87.
  EXPECT_EQ(t.step_time, Micros(87));
  EXPECT_EQ(t.ranks[0].dp_exposed, Micros(20));
  prog.overlap_grad_reduce = false;
  t = SimulateStep(prog, nullptr);
  EXPECT_EQ(t.step_time, Micros(60 + 30 + 7));
}

// Contention (overlap_contention c = 0.25): compute that overlapped dp-stream collectives for T does T c / (1
// + c) of its work late. F 0..10, B 10..30; bucket 1 reduces 20..24 beside B (T = 4 us: 0.8 us late), bucket
// 2 30..32 after it, and now after the stretched end: 30.8 + 2. A ZeRO-3 gather of B (4..8) runs beside F:
// 0.8 us too.
TEST(StepSimTest, ContentionStretchesOverlappedCompute) {
  StepProgram prog = Uniform("1f1b", 1, 1, 1, Micros(10), Micros(20));
  prog.buckets = {{GradBucket{0, 0.5, Micros(4)}, GradBucket{0, 1.0, Micros(2)}}};
  EXPECT_EQ(SimulateStep(prog, nullptr).step_time, Micros(32));
  prog.overlap_contention = 0.25;
  StepTimeline t = SimulateStep(prog, nullptr);
  EXPECT_EQ(t.step_time, Nanos(32800));
  EXPECT_EQ(t.ranks[0].contention, Nanos(800));
  EXPECT_EQ(t.ranks[0].dp_exposed, Micros(2));
  EXPECT_EQ(t.ranks[0].bubble, Duration::Zero());

  StepProgram zero3 = Uniform("1f1b", 1, 1, 1, Micros(10), Micros(20));
  zero3.zero3_gather = {Micros(4)};
  zero3.zero3_layers = {1};
  zero3.overlap_contention = 0.25;
  // gather F 0..4, F 4..14 beside gather B 4..8, B 14..34.
  EXPECT_EQ(SimulateStep(zero3, nullptr).step_time, Nanos(34800));
}

// Blocking sends (DeepSpeed's pipeline engine): 1F1B on 2 ranks, 2 micro-batches, F 10, B 20, p2p 5 us.
// Async: rank 0 F0 0..10, F1 10..20; rank 1 F0 15..25, B0 25..45, F1 45..55, B1 55..75; rank 0 B0 50..70 and
// B1 after the last gradient arrives at 80: 100. Blocking: rank 0's F1 waits for its send (15..25, send to
// 30), rank 1's F1 for its gradient send (50..60), B1 60..80, sent by 85: rank 0's B1 85..105.
TEST(StepSimTest, BlockingSendsHoldTheSendersCompute) {
  StepProgram prog = Uniform("1f1b", 2, 1, 2, Micros(10), Micros(20));
  prog.p2p = Micros(5);
  EXPECT_EQ(SimulateStep(prog, nullptr).step_time, Micros(100));
  prog.p2p_blocking = true;
  const StepTimeline t = SimulateStep(prog, nullptr);
  EXPECT_EQ(t.step_time, Micros(105));
  EXPECT_EQ(t.ranks[1].bubble, Micros(15 + 5));  // waits for F0's activation, then blocked in its send
}

// A reduction queue that bounds the step does not move: bucket 1 reduces 20..50 (10 us beside B: 2 us late, B
// ends at 32), bucket 2 is queued to 50..52, later than 32 + 2.
TEST(StepSimTest, ContentionDoesNotMoveAReductionQueueThatBoundsTheStep) {
  StepProgram prog = Uniform("1f1b", 1, 1, 1, Micros(10), Micros(20));
  prog.buckets = {{GradBucket{0, 0.5, Micros(30)}, GradBucket{0, 1.0, Micros(2)}}};
  prog.overlap_contention = 0.25;
  StepTimeline t = SimulateStep(prog, nullptr);
  EXPECT_EQ(t.step_time, Micros(52));
  EXPECT_EQ(t.ranks[0].contention, Micros(2));
  EXPECT_EQ(t.ranks[0].dp_exposed, Micros(20));
}

// ZeRO-3 gathers, prefetched one task ahead on the DP stream, F 10 us and B 20 us. A chunk of one layer waits
// for its whole gather; of several layers, a task starts once its first layer's share has arrived and its
// last layer waits for the whole gather. Every wait is the gather's, not a pipeline bubble.
TEST(StepSimTest, Zero3GatherPrefetchedOneAheadLayerByLayer) {
  struct Case {
    int gather_us, layers;
    double step_us, wait_us;
  };
  const Case cases[] = {
      // gather F 0..4, F 4..14 while gather B 4..8; B 14..34.
      {4, 1, 34, 4},
      // gather F 0..15, F 15..25 while gather B 15..30, B waits 25..30, B 30..50.
      {15, 1, 50, 15 + 5},
      // gather F 0..4 (first layer at 1), F 1..11; gather B 4..8, B 11..31.
      {4, 4, 31, 1},
      // gather F 0..15 (first layer at 5): F 5..15, its last layer waits to 15 + 10 / 3; gather B 15..30
      // (first layer at 20), B 20..40.
      {15, 3, 40, 5 + 10.0 / 3 + (20 - 15 - 10.0 / 3)},
  };
  for (const Case& c : cases) {
    StepProgram prog = Uniform("1f1b", 1, 1, 1, Micros(10), Micros(20));
    prog.zero3_gather = {Micros(c.gather_us)};
    prog.zero3_layers = {c.layers};
    StepTimeline t = SimulateStep(prog, nullptr);
    EXPECT_NEAR(t.step_time.ToMicros(), c.step_us, 0.002) << c.gather_us << " us, " << c.layers << " layers";
    EXPECT_NEAR(t.ranks[0].gather_wait.ToMicros(), c.wait_us, 0.002) << c.gather_us << " us, " << c.layers;
    EXPECT_EQ(t.ranks[0].bubble, Duration::Zero());
  }
}

}  // namespace
}  // namespace dlsim::train

namespace dlsim::train {
namespace {

// Data-parallel straggler: the gradient reduction waits for the slowest replica.
TEST(StepSimTest, ReductionWaitsForSlowestReplica) {
  PipelineScheduleRegistry reg("pipeline-schedule");
  RegisterPipelineSchedules(reg);
  StepProgram prog;
  prog.shape = {1, 1, 1};
  PipeOrder order = *(*reg.Create("1f1b"))->Order(prog.shape);
  prog.orders = {order, order};
  prog.task_cost = [](int replica, int, const PipeTask& t) {
    TaskCost c;
    c.compute = Micros((t.forward ? 10 : 20) * (replica == 0 ? 1.0 : 1.5));
    return c;
  };
  prog.buckets = {{GradBucket{0, 1.0, Micros(5)}}};
  StepTimeline t = SimulateStep(prog, nullptr);
  EXPECT_EQ(t.step_time, Micros(50));
  EXPECT_EQ(t.critical_replica, 1);
  ASSERT_EQ(t.replica_compute_end.size(), 2u);
  EXPECT_EQ(t.replica_compute_end[0], Micros(30));
  EXPECT_EQ(t.replica_compute_end[1], Micros(45));
}

// Replicas may run different numbers of micro-batches (e.g. chunk-based policies).
TEST(StepSimTest, ReplicasWithDifferentMicroBatchCounts) {
  PipelineScheduleRegistry reg("pipeline-schedule");
  RegisterPipelineSchedules(reg);
  StepProgram prog;
  prog.shape = {2, 1, 4};
  prog.orders = {*(*reg.Create("1f1b"))->Order({2, 1, 2}), *(*reg.Create("1f1b"))->Order({2, 1, 4})};
  prog.task_cost = [](int, int, const PipeTask& t) {
    TaskCost c;
    c.compute = Micros(t.forward ? 1 : 2);
    return c;
  };
  StepTimeline t = SimulateStep(prog, nullptr);
  EXPECT_EQ(t.replica_compute_end[0], Micros(3 * 3));  // (m + p - 1) (f + b)
  EXPECT_EQ(t.replica_compute_end[1], Micros(5 * 3));
  EXPECT_EQ(t.step_time, Micros(15));
}

}  // namespace
}  // namespace dlsim::train
