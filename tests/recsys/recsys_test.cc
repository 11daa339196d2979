// PICASSO's pieces: the Zipf stream, the GPU caches against brute-force counts, and the mechanisms of
// packing, interleaving and caching in the iteration model (closed forms where they exist).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "dlsim/studies/recsys/embedding_cache.h"
#include "dlsim/studies/recsys/iteration.h"

namespace dlsim::recsys {
namespace {

EmbeddingTable Table(int64_t vocab, double zipf, int dim = 16, int hot = 1) {
  EmbeddingTable t;
  t.name = "t" + std::to_string(vocab) + "_" + std::to_string(dim);
  t.vocab = vocab;
  t.zipf = zipf;
  t.dim = dim;
  t.hotness = hot;
  return t;
}

TEST(Zipf, SkewedAndInRange) {
  Rng rng(1);
  const ZipfSampler z(1000, 1.1);
  std::vector<int> counts(1000);
  for (int i = 0; i < 200000; ++i) {
    const int64_t r = z.Sample(rng);
    ASSERT_GE(r, 0);
    ASSERT_LT(r, 1000);
    ++counts[r];
  }
  EXPECT_GT(counts[0], counts[9] * 5);  // continuous law: P(0) / P(9) ~ 10^1.1 / ... well above 5
  EXPECT_GT(counts[9], counts[99]);
}

TEST(EmbeddingCache, StaticHotHitRatioEqualsBruteForceCount) {
  const std::vector<EmbeddingTable> tables = {Table(5000, 1.1), Table(300, 0.8, 32, 3)};
  const int batch = 500, batches = 3;
  const double fraction = 0.02;
  int64_t hits = 0, accesses = 0;
  for (const EmbeddingTable& t : tables) {
    const std::vector<int64_t> ids = DrawIds(t, batch, batches, 7);
    const size_t warm = static_cast<size_t>(batch) * t.hotness;
    std::map<int64_t, int64_t> freq;  // brute force: count, sort, take the top, count the members
    for (size_t i = 0; i < warm; ++i) ++freq[ids[i]];
    std::vector<std::pair<int64_t, int64_t>> v(freq.begin(), freq.end());
    std::sort(v.begin(), v.end(),
              [](auto a, auto b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    const int64_t cap = static_cast<int64_t>(std::ceil(fraction * t.vocab));
    std::vector<int64_t> hot;
    for (int64_t i = 0; i < std::min<int64_t>(cap, v.size()); ++i) hot.push_back(v[i].first);
    for (size_t i = warm; i < ids.size(); ++i, ++accesses)
      hits += std::find(hot.begin(), hot.end(), ids[i]) != hot.end();
  }
  auto h = MeasureHitRatio(tables, "static-hot", batch, batches, fraction, 7);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->accesses, accesses);
  EXPECT_EQ(h->hits, hits);
  EXPECT_GT(h->ratio(), 0.2);  // skew: 2% of the rows serve far more than 2% of the lookups
}

TEST(EmbeddingCache, LruHitRatioEqualsBruteForceReplay) {
  const std::vector<EmbeddingTable> tables = {Table(2000, 1.05)};
  const int batch = 400, batches = 2;
  const std::vector<int64_t> ids = DrawIds(tables[0], batch, batches, 3);
  const int64_t cap = 40;    // ceil(0.02 x 2000)
  std::vector<int64_t> lru;  // most recent first
  int64_t hits = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    auto it = std::find(lru.begin(), lru.end(), ids[i]);
    const bool hit = it != lru.end();
    if (hit) lru.erase(it);
    lru.insert(lru.begin(), ids[i]);
    if (static_cast<int64_t>(lru.size()) > cap) lru.pop_back();
    if (i >= static_cast<size_t>(batch)) hits += hit;  // the first batch warms the cache
  }
  auto h = MeasureHitRatio(tables, "lru", batch, batches, 0.02, 3);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->hits, hits);
  EXPECT_FALSE(MeasureHitRatio(tables, "fifo", batch, batches, 0.02, 3).ok());
}

class IterationTest : public ::testing::Test {
 protected:
  IterationTest() {
    net::CollectiveRegistry reg("collective-model");
    net::RegisterCollectiveModels(reg);
    auto created = reg.Create("ideal", net::NetworkCalibration{});
    model_ = std::move(*created);
    c_.nodes = 2;
    c_.gpus_per_node = 8;
    c_.batch_per_gpu = 4096;
    c_.gpu_flops = TFLOPS(15);
    c_.hbm_bw = GBps(900);
    c_.intra_bw = GBps(150);
    c_.nic_bw = Gbps(100);
    c_.launch = Micros(10);
    c_.collective_latency = Micros(30);
    c_.rpc = Micros(250);
    c_.collectives = model_.get();
    for (int i = 0; i < 100; ++i) m_.tables.push_back(Table(100000, 1.1, i % 2 ? 16 : 32));
  }
  std::unique_ptr<net::CollectiveModel> model_;
  RecCluster c_;
  RecModel m_;
};

TEST_F(IterationTest, PackingMergesTablesOfEqualDimension) {
  const IterationBreakdown plain = PriceGpuCentric(m_, c_, {});
  const IterationBreakdown packed = PriceGpuCentric(m_, c_, {.packing = true});
  EXPECT_EQ(plain.exchanges, 2 * 100 + 1);  // forward and backward all-to-all per table, one all-reduce
  EXPECT_EQ(packed.exchanges, 2 * 2 + 1);   // two dimensions
  EXPECT_LT(packed.kernels, plain.kernels / 10);
  EXPECT_LT(packed.iteration, plain.iteration);
  EXPECT_EQ(packed.compute, plain.compute);
}

TEST_F(IterationTest, InterleavingPipelinesToTheLongerStage) {
  const IterationBreakdown one = PriceGpuCentric(m_, c_, {.packing = true});
  const IterationBreakdown many = PriceGpuCentric(m_, c_, {.packing = true, .micro_batches = 64});
  EXPECT_LT(many.iteration, one.iteration);
  // Never below the longer stage or the launches.
  EXPECT_GE(many.iteration, std::max(many.launch, many.compute));
}

TEST_F(IterationTest, CachingCutsTheExchangedBytes) {
  const IterationBreakdown none = PriceGpuCentric(m_, c_, {.packing = true});
  const IterationBreakdown half = PriceGpuCentric(m_, c_, {.packing = true, .hit_ratio = 0.5});
  EXPECT_LT(half.comm, none.comm);
  EXPECT_EQ(half.memory, none.memory);  // hits are still gathered, locally
  const IterationBreakdown ps = PriceParameterServer(m_, c_, {});
  EXPECT_GT(ps.comm, none.comm);
  EXPECT_NEAR(ps.samples_per_second, 4096.0 * 16 / ps.iteration.ToSeconds(), 1e-6 * ps.samples_per_second);
}

TEST_F(IterationTest, RegisteredSystemsApplyTheirOptimisations) {
  SystemRegistry reg("recsys-system");
  RegisterSystems(reg);
  const double ps = (*reg.Create("tf-ps"))->Price(m_, c_, {.hit_ratio = 0.5}).samples_per_second;
  const double gpu = (*reg.Create("gpu-centric"))->Price(m_, c_, {.hit_ratio = 0.5}).samples_per_second;
  const double picasso = (*reg.Create("picasso"))->Price(m_, c_, {.hit_ratio = 0.5}).samples_per_second;
  EXPECT_LT(ps, gpu);
  EXPECT_LT(gpu, picasso);
  EXPECT_EQ(
      picasso,
      PriceGpuCentric(m_, c_, {.packing = true, .micro_batches = 4, .hit_ratio = 0.5}).samples_per_second);
}

TEST(Tables, BadRowsAreErrors) {
  EXPECT_FALSE(ParseTableCsv("name,vocab,zipf\na,0,1.1\n", "t.csv").ok());
  auto e = ParseTableCsv("name,vocab,zipf\na,10,9\n", "t.csv");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("t.csv:2"), std::string::npos) << e.error().message;
  EXPECT_EQ(
      Replicate(*ParseTableCsv("name,vocab,zipf\na,10,1.1\nb,5,1\n", "t.csv"), 3, {8, 16}, {1}).tables.size(),
      6u);
}

}  // namespace
}  // namespace dlsim::recsys
