// Select-N made faithful (issue 14): the KV cache offloaded with the weights, the offline performance
// record and the admission it gives, and FlexGen's own policy search.
#include <algorithm>

#include "dlsim/serve/flexgen_policy.h"
#include "dlsim/serve/performance_record.h"
#include "dlsim/serve/simulate.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;

ServeOptions Tight() {
  ServeOptions o = BaseOptions("llama2-13b", "a100-sxm4-40gb");
  o.workload.requests = 400;
  o.workload.seed = 3;
  o.workload.prompt.max = 4096;
  o.workload.output.max = 1024;
  o.offload.pcie_gbps = 25;
  o.offload.mode = OffloadMode::kSelectN;
  o.slo.tpot_s = 0.1;
  return o;
}

// Closed form of the memory arithmetic on a hand-made plan: W = 100, KV 40 per token over 4 layers
// (10 per layer), room 1000. Offloading n layers' weights and KV frees n (W + tokens x 10) and takes
// one layer in flight back: 1 + ceil((40 T - 1000) / (100 + 10 T)).
TEST(SelectNMemory, LayersNeededIsTheClosedForm) {
  MemoryPlan p;
  p.usable = Bytes(1500);
  p.weights = Bytes(500);
  p.layer_weights = Bytes(100);
  p.layers = 4;
  p.token_kv = Bytes(40);
  p.kv_offloaded = true;
  EXPECT_EQ(SelectNLayersNeeded(p, 25), 0);                         // 1000 bytes: fits
  EXPECT_EQ(SelectNLayersNeeded(p, 30), 2);                         // 200 over; 400 per layer
  EXPECT_EQ(SelectNLayerTransfer(p, 30).value(), 100 + 30 * 10.0);  // weights + one layer's KV
  p.kv_offloaded = false;
  EXPECT_EQ(SelectNLayersNeeded(p, 30), 3);  // 200 over; 100 per layer
  EXPECT_EQ(SelectNLayerTransfer(p, 30).value(), 100);
}

// Offloading the KV with the weights frees more memory per offloaded layer, so the same interval
// holds more KV: more blocks, and the host holds KV too.
TEST(SelectNMemory, KvStateHoldsMoreTokensAtTheSameInterval) {
  ServeOptions o = Tight();
  o.offload.min_interval = 4;
  auto cost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(cost.ok());
  auto kv = PlanMemory(o, **cost);
  o.offload.state = OffloadState::kWeights;
  auto w = PlanMemory(o, **cost);
  ASSERT_TRUE(kv.ok() && w.ok());
  EXPECT_EQ(kv->offloaded.value(), w->offloaded.value());
  EXPECT_GT(kv->kv_blocks, w->kv_blocks);
  EXPECT_GT(kv->offloaded_kv.value(), 0);
  EXPECT_EQ(w->offloaded_kv.value(), 0);
}

// The record's admission cap is the longest feasible prefix of its batches at each context, never
// grows with the context, and every entry it admits meets the TPOT SLO and fits the cache.
TEST(PerformanceRecord, MaxBatchIsTheFeasiblePrefixAndMeetsTheSlo) {
  ServeOptions o = Tight();
  auto cost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(cost.ok());
  auto plan = PlanMemory(o, **cost);
  ASSERT_TRUE(plan.ok());
  ASSERT_GT(plan->min_interval, 0);
  const PerformanceRecord rec = PerformanceRecord::Build(o, *plan, **cost);
  int64_t previous = o.scheduler.max_batch_size;
  bool some_cap_binds = false;
  for (int64_t c : rec.contexts()) {
    const int64_t cap = rec.MaxBatch(c);
    EXPECT_LE(cap, previous) << c;
    previous = cap;
    for (int64_t b = 1; b <= cap; ++b) {
      const RecordEntry& e = rec.At(b, c);
      EXPECT_TRUE(e.feasible || cap == 1) << b << " x " << c;
      if (e.feasible) {
        EXPECT_LE(e.tpot, Seconds(o.slo.tpot_s));
      }
    }
    if (cap < o.scheduler.max_batch_size) {
      EXPECT_FALSE(rec.At(cap + 1, c).feasible) << c;
      some_cap_binds = true;
    }
  }
  EXPECT_TRUE(some_cap_binds);
  EXPECT_EQ(rec.MaxBatch(65), rec.MaxBatch(rec.contexts()[1]));  // rounds the context up
}

// The grids grow geometrically: the largest batch and context the readers allow give a small record.
TEST(PerformanceRecord, LargestBatchAndContextStayBounded) {
  ServeOptions o = Tight();
  o.scheduler.max_batch_size = 65536;
  o.workload.prompt.max = 1 << 20;
  o.workload.output.max = 1 << 20;
  auto cost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(cost.ok());
  auto plan = PlanMemory(o, **cost);
  ASSERT_TRUE(plan.ok());
  const PerformanceRecord rec = PerformanceRecord::Build(o, *plan, **cost);
  EXPECT_LT(rec.entries().size(), 20000u);
  EXPECT_EQ(rec.batches().back(), 65536);
  EXPECT_GE(rec.contexts().back(), 2 << 20);
  EXPECT_EQ(rec.batches()[63], 64);
}

// A policy never admits past the controller's cap, even with room in the cache.
TEST(PerformanceRecord, SchedulersRespectTheAdmissionCap) {
  for (const char* name : {"vllm", "sarathi", "orca"}) {
    ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
    o.scheduler.name = name;
    auto policy = Env().env->schedulers.Create(name, o.scheduler);
    ASSERT_TRUE(policy.ok());
    std::vector<Request> reqs(10);
    ReplicaQueues q;
    for (int32_t i = 0; i < 10; ++i) {
      reqs[i].prompt = reqs[i].prefill_target = 10;
      reqs[i].output = 5;
      q.waiting.push_back(i);
    }
    KvCache kv(1000, 16, 0.01);
    SchedulerContext ctx{reqs, kv, Bytes(1), 0};
    ctx.max_running = 3;
    Batch batch;
    (*policy)->FormBatch(q, ctx, batch);
    EXPECT_EQ(q.running.size(), 3u) << name;
  }
}

// With admission by the record, Select-N's decode iterations stay within the SLO more often: the
// p99 TPOT at a load past memory-only admission's knee drops, and no request is lost.
TEST(PerformanceRecord, AdmissionKeepsTpotWhereMemoryAloneBreaksIt) {
  ServeOptions o = Tight();
  o.workload.rate = 0.75;
  auto with = Simulate(o, Env().catalogs, nullptr);
  o.offload.slo_admission = false;
  auto without = Simulate(o, Env().catalogs, nullptr);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(with->metrics.requests_completed, o.workload.requests);
  EXPECT_LT(with->metrics.tpot_s.p99, without->metrics.tpot_s.p99);
  EXPECT_GT(with->metrics.slo_attainment, without->metrics.slo_attainment);
}

// FlexGen's search maximises its own throughput objective: no grid placement beats it, and where
// the model fits with room for the longest request it keeps everything on the GPU.
TEST(FlexGenPolicy, SearchFindsTheBestGridPlacementAndNeedsNoOffloadWhenItFits) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.prompt.max = 4096;
  o.workload.output.max = 1024;
  auto cost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(cost.ok());
  const FlexGenPolicy p = SearchFlexGenPolicy(o, **cost);
  EXPECT_EQ(p.weight_fraction, 0);
  EXPECT_EQ(p.kv_fraction, 0);
  EXPECT_GT(p.tokens_per_s, 0);
  o = BaseOptions("llama2-7b", "t4-16gb");  // 13.5 GB of weights on 16 GB: offloading is needed
  o.workload.prompt.max = 2048;
  o.workload.output.max = 512;
  auto tcost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(tcost.ok());
  const FlexGenPolicy t = SearchFlexGenPolicy(o, **tcost);
  EXPECT_GT(t.weight_fraction + t.kv_fraction, 0);
  EXPECT_GT(t.tokens_per_s, 0);
}

}  // namespace
}  // namespace dlsim::serve
