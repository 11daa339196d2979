#include <gtest/gtest.h>

#include <numeric>

#include "dlsim/data/data_policy.h"
#include "dlsim/data/length_source.h"

namespace dlsim::data {
namespace {

StepData Schedule(const std::string& name, const std::vector<int64_t>& docs, const DataShape& shape) {
  DataPolicyRegistry reg("data-policy");
  RegisterDataPolicies(reg);
  auto p = reg.Create(name);
  EXPECT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p)->name(), name);
  auto step = (*p)->Schedule(docs, shape);
  EXPECT_TRUE(step.ok()) << step.error().message;
  return step.ok() ? std::move(step).value() : StepData{};
}

double CausalSum(const std::vector<int64_t>& docs) {
  double s = 0;
  for (int64_t l : docs) s += static_cast<double>(l) * static_cast<double>(l + 1) / 2;
  return s;
}

int64_t Sum(const std::vector<int64_t>& v) { return std::accumulate(v.begin(), v.end(), int64_t{0}); }

struct Totals {
  int64_t tokens = 0, real = 0, cp_kv = 0;
  int micro_batches = 0;
};

Totals Count(const StepData& s) {
  Totals t;
  for (const auto& rank : s.dp) {
    for (const MicroBatch& mb : rank) {
      ++t.micro_batches;
      for (const Load& l : mb.cp) {
        t.tokens += l.tokens;
        t.real += l.real_tokens;
        t.cp_kv += l.cp_kv_tokens;
        EXPECT_LE(l.real_tokens, l.tokens);
      }
    }
  }
  EXPECT_EQ(t.tokens, s.computed_tokens);
  EXPECT_EQ(t.real, s.real_tokens);
  return t;
}

// A skewed batch: a few long documents among many short ones.
std::vector<int64_t> SkewedDocs(uint64_t seed, int64_t budget) {
  LengthSpec spec{.distribution = "pareto_mix",
                  .median = 1200,
                  .sigma = 0.9,
                  .tail_fraction = 0.03,
                  .tail_min = 8192,
                  .tail_alpha = 1.2};
  auto src = MakeLengthSource(spec);
  Rng rng = Rng(seed).Stream("data/lengths");
  return DrawDocuments(**src, rng, budget, 65536);
}

TEST(DataPolicy, RegistryListsTheBuiltins) {
  DataPolicyRegistry reg("data-policy");
  RegisterDataPolicies(reg);
  for (const char* n : {"pad", "pad_attention", "pack", "pack_nomask", "padding_free", "chunkflow", "skrull",
                        "wlb", "distca"})
    EXPECT_TRUE(reg.Contains(n)) << n;
  auto bad = reg.Create("paddingfree");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("did you mean 'padding_free'"), std::string::npos)
      << bad.error().message;
}

TEST(DataPolicy, PaddingFreeComputesExactlyTheRealTokens) {
  std::vector<int64_t> docs = {100, 7, 2048, 1, 513, 64, 900, 31};
  DataShape shape{.dp = 2, .cp = 1, .micro_batch = 3, .seq_len = 2048};
  StepData s = Schedule("padding_free", docs, shape);
  Totals t = Count(s);
  EXPECT_EQ(t.tokens, Sum(docs));
  EXPECT_EQ(t.real, Sum(docs));
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(s), CausalSum(docs));
  // 4 documents per rank, micro-batches of 3: sizes 3 and 1.
  ASSERT_EQ(s.dp.size(), 2u);
  ASSERT_EQ(s.dp[0].size(), 2u);
  EXPECT_EQ(s.dp[0][0].sequences, 3);
  EXPECT_EQ(s.dp[0][0].cp[0].tokens, 100 + 7 + 2048);
  EXPECT_EQ(s.dp[1][1].cp[0].tokens, 31);
  EXPECT_EQ(s.documents, 8);
  EXPECT_EQ(s.truncated, 0);
}

TEST(DataPolicy, PadComputesBatchTimesLongest) {
  std::vector<int64_t> docs = {100, 7, 300, 50, 60};
  DataShape shape{.dp = 1, .cp = 1, .micro_batch = 3, .seq_len = 4096};
  StepData s = Schedule("pad", docs, shape);
  ASSERT_EQ(s.dp[0].size(), 2u);
  const Load& a = s.dp[0][0].cp[0];
  EXPECT_EQ(a.tokens, 3 * 300);
  EXPECT_EQ(a.real_tokens, 407);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(a),
                   3 * 300.0 * 301 / 2);  // dense over the padded length
  ASSERT_EQ(a.attention.size(), 1u);
  EXPECT_EQ(a.attention[0].count, 3);
  EXPECT_EQ(s.dp[0][1].cp[0].tokens, 2 * 60);
  EXPECT_EQ(s.computed_tokens, 900 + 120);
  EXPECT_EQ(s.real_tokens, Sum(docs));
}

TEST(DataPolicy, PadTruncatesAtMaxLen) {
  DataShape shape{.dp = 1, .micro_batch = 2, .seq_len = 4096, .max_len = 128};
  StepData s = Schedule("pad", {1000, 10, 128}, shape);
  EXPECT_EQ(s.truncated, 1);
  EXPECT_EQ(s.real_tokens, 128 + 10 + 128);
  EXPECT_EQ(s.dp[0][0].cp[0].tokens, 256);
}

TEST(DataPolicy, PadToMaxLenPadsEveryDocumentToMaxLen) {
  // Closed form: batch x max_len tokens, batch x max_len^2 bidirectional pairs, whatever the lengths;
  // a single document is padded too (pad_to: longest leaves it as it is).
  DataShape shape{
      .dp = 1, .micro_batch = 4, .seq_len = 512, .max_len = 256, .causal = false, .pad_to = PadTo::kMaxLen};
  StepData s = Schedule("pad", {100, 7, 300, 50, 60}, shape);
  ASSERT_EQ(s.dp[0].size(), 2u);
  EXPECT_EQ(s.computed_tokens, 5 * 256);
  EXPECT_EQ(s.real_tokens, 100 + 7 + 256 + 50 + 60);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(s), 5 * 256.0 * 256);
  StepData one = Schedule("pad", {40}, shape);
  EXPECT_EQ(one.computed_tokens, 256);
  shape.pad_to = PadTo::kLongest;
  EXPECT_EQ(Schedule("pad", {40}, shape).computed_tokens, 40);
}

TEST(DataPolicy, PadAttentionKeepsRealTokensAndPadsOnlyAttention) {
  std::vector<int64_t> docs = {100, 7, 300, 50, 60};
  for (int cp : {1, 2}) {
    for (PadTo to : {PadTo::kLongest, PadTo::kMaxLen}) {
      DataShape shape{.dp = 1, .cp = cp, .micro_batch = 3, .seq_len = 4096, .max_len = 512, .pad_to = to};
      StepData ft = Schedule("pad_attention", docs, shape);
      StepData padded = Schedule("pad", docs, shape);
      StepData free = Schedule("padding_free", docs, shape);
      EXPECT_EQ(ft.computed_tokens, Sum(docs));  // GEMMs see the real tokens only
      EXPECT_EQ(Count(ft).tokens, Count(free).tokens);
      EXPECT_DOUBLE_EQ(TotalAttentionPairs(ft), TotalAttentionPairs(padded));  // attention is padded
      EXPECT_EQ(Count(ft).cp_kv, Count(padded).cp_kv);
    }
  }
}

TEST(DataPolicy, PackMasksDocumentsAndSplitsAtRowEnds) {
  // seq_len 10: rows [6 4] [5 5] [7 | pad 3]: the 9-token document splits 4 + 5
  // at a row end.
  std::vector<int64_t> docs = {6, 9, 5, 7};
  DataShape shape{.dp = 1, .micro_batch = 2, .seq_len = 10, .max_len = 100};
  StepData s = Schedule("pack", docs, shape);
  std::vector<int64_t> pieces = {6, 4, 5, 5, 7};
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(s), CausalSum(pieces));
  Totals t = Count(s);
  EXPECT_EQ(t.tokens, 30);
  EXPECT_EQ(t.real, 30 - 3);
  ASSERT_EQ(s.dp[0].size(), 2u);
  EXPECT_EQ(s.dp[0][0].sequences, 2);
  EXPECT_EQ(s.dp[0][1].cp[0].tokens, 10);
  EXPECT_EQ(s.dp[0][1].cp[0].real_tokens, 7);
}

TEST(DataPolicy, PackWithoutSplitsCostsSumOfCausalDocuments) {
  std::vector<int64_t> docs = {1000, 1048, 2048, 512, 512, 1024};  // fills rows of 2048 exactly
  DataShape shape{.dp = 2, .micro_batch = 1, .seq_len = 2048};
  StepData s = Schedule("pack", docs, shape);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(s), CausalSum(docs));
  EXPECT_EQ(s.computed_tokens, Sum(docs));
}

TEST(DataPolicy, ContextParallelZigzagKeepsPairsAndBalances) {
  std::vector<int64_t> docs = {4096, 4096};
  DataShape shape{.dp = 1, .cp = 4, .micro_batch = 2, .seq_len = 4096};
  StepData s = Schedule("padding_free", docs, shape);
  const MicroBatch& mb = s.dp[0][0];
  ASSERT_EQ(mb.cp.size(), 4u);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(mb), CausalSum(docs));
  double mean = CausalSum(docs) / 4;
  for (const Load& l : mb.cp) {
    EXPECT_EQ(l.tokens, 2048);
    EXPECT_EQ(l.cp_kv_tokens,
              3 * 2048);  // ring: local K/V to each of the 3 peers
    EXPECT_NEAR(TotalAttentionPairs(l), mean, mean * 0.01);
  }
}

TEST(DataPolicy, BidirectionalAttentionIsSquare) {
  DataShape shape{.dp = 1, .micro_batch = 2, .seq_len = 512, .causal = false};
  StepData s = Schedule("padding_free", {100, 200}, shape);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(s), 100.0 * 100 + 200.0 * 200);
  StepData p = Schedule("pad", {100, 200}, shape);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(p), 2 * 200.0 * 200);
}

// A later chunk's ring attention reads the whole prefix: each CP rank holds its zigzag shares of the
// earlier chunks (prefix_kv_tokens) and passes them, with its share of the chunk, to the cp - 1 others.
TEST(ChunkFlow, RingStepOfALaterChunkMovesThePrefixKv) {
  DataShape shape{.dp = 1, .cp = 2, .seq_len = 32768, .max_len = 32768, .chunk_size = 8192};
  StepData s = Schedule("chunkflow", {20000}, shape);  // chunks 8192, 8192, 3616, in order
  ASSERT_EQ(s.dp[0].size(), 3u);
  const std::vector<int64_t> prefix = {0, 8192, 16384};
  for (size_t j = 0; j < 3; ++j) {
    int64_t held = 0;
    for (const Load& l : s.dp[0][j].cp) {
      held += l.prefix_kv_tokens;
      EXPECT_EQ(l.cp_kv_tokens, 1 * (l.tokens + l.prefix_kv_tokens)) << "chunk " << j;
    }
    EXPECT_EQ(held, prefix[j]) << "chunk " << j;
    EXPECT_EQ(s.dp[0][j].cp[0].prefix_kv_tokens, prefix[j] / 2);  // 8192-token chunks split evenly
  }
  // Standalone (packed) chunks carry no prefix.
  StepData shorts = Schedule("chunkflow", {3000, 4000, 100}, shape);
  for (const MicroBatch& mb : shorts.dp[0])
    for (const Load& l : mb.cp) EXPECT_EQ(l.prefix_kv_tokens, 0);
}

TEST(ChunkFlow, ChunksBoundTokensAndCarryTheirPrefix) {
  // 20000 = chunks of 8192, 8192, 3616 (dependent); the short ones pack best-fit decreasing.
  std::vector<int64_t> docs = {3000, 20000, 5000, 100, 8192, 2000};
  DataShape shape{.dp = 1, .cp = 1, .seq_len = 32768, .chunk_size = 8192, .chunk_keep = 1};
  StepData s = Schedule("chunkflow", docs, shape);
  const auto& mbs = s.dp[0];
  int recomputed = 0;
  std::vector<std::pair<int64_t, int64_t>> long_blocks;
  for (const MicroBatch& mb : mbs) {
    EXPECT_LE(mb.cp[0].tokens, 8192);
    recomputed += mb.recompute;
    for (const AttentionBlock& b : mb.cp[0].attention) {
      if (b.seq_kv > b.seq_q) long_blocks.push_back({b.seq_q, b.seq_kv});
    }
  }
  // The long document runs first (largest work), its chunks in order, the first two recomputed.
  ASSERT_GE(mbs.size(), 3u);
  EXPECT_EQ(mbs[0].cp[0].attention[0].seq_kv, 8192);
  EXPECT_EQ(long_blocks, (std::vector<std::pair<int64_t, int64_t>>{{8192, 16384}, {3616, 20000}}));
  EXPECT_EQ(recomputed, 2);
  // The long document's three chunks, then 8192 | 5000 + 3000 + 100 | 2000: six micro-batches in all.
  EXPECT_EQ(mbs.size(), 6u);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(s), CausalSum(docs));
  EXPECT_EQ(s.computed_tokens, Sum(docs));  // no padding
}

TEST(ChunkFlow, EveryMicroBatchWithinTheChunkOnASkewedBatch) {
  std::vector<int64_t> docs = SkewedDocs(9, 1 << 21);
  for (int cp : {1, 2}) {
    DataShape shape{.dp = 16, .cp = cp, .seq_len = 65536, .chunk_size = 4096};
    StepData s = Schedule("chunkflow", docs, shape);
    int64_t most = 0;
    for (const auto& rank : s.dp) {
      for (const MicroBatch& mb : rank) {
        int64_t t = 0;
        for (const Load& l : mb.cp) t += l.tokens;
        most = std::max(most, t);
      }
    }
    EXPECT_LE(most, 4096);
    EXPECT_GT(most, 4000);
  }
}

TEST(Skrull, RespectsTheTokenBudgetAndKeepsShortDocumentsLocal) {
  std::vector<int64_t> docs = SkewedDocs(5, 1 << 21);
  DataShape shape{
      .dp = 8, .cp = 4, .micro_batches = 2, .seq_len = 16384, .max_len = 65536, .token_budget = 16384};
  StepData s = Schedule("skrull", docs, shape);
  int local_only = 0;
  for (const auto& rank : s.dp) {
    for (const MicroBatch& mb : rank) {
      bool exchange = false;
      for (const Load& l : mb.cp) {
        EXPECT_LE(l.tokens, 16384);
        exchange |= l.cp_kv_tokens > 0;
      }
      local_only += !exchange;
    }
  }
  EXPECT_GT(local_only, 0);  // micro-batches of short documents need no CP exchange
  // A document longer than the budget must be sharded: its tokens appear on every CP rank.
  StepData one = Schedule("skrull", {40000}, shape);
  ASSERT_EQ(one.dp[0].size(), 1u);
  for (const Load& l : one.dp[0][0].cp) EXPECT_EQ(l.tokens, 10000);
  // Short ones stay whole on one rank each.
  StepData two = Schedule("skrull", {5000, 6000}, shape);
  int busy = 0;
  for (const auto& rank : two.dp) {
    for (const MicroBatch& mb : rank) {
      for (const Load& l : mb.cp) {
        busy += l.tokens > 0;
        EXPECT_EQ(l.cp_kv_tokens, 0);
      }
    }
  }
  EXPECT_EQ(busy, 2);
}

TEST(Skrull, DocumentBeyondTheBudgetIsAnError) {
  DataPolicyRegistry reg("data-policy");
  RegisterDataPolicies(reg);
  auto p = reg.Create("skrull");
  DataShape shape{.dp = 1, .cp = 2, .seq_len = 1024, .max_len = 100000, .token_budget = 1000};
  auto r = (*p)->Schedule({3000}, shape);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("token_budget"), std::string::npos) << r.error().message;
}

// Spread of per-GPU attention pairs for each micro-batch index: max / mean.
double WorstAttentionSpread(const StepData& s) {
  double worst = 1;
  for (size_t k = 0;; ++k) {
    std::vector<double> v;
    for (const auto& rank : s.dp) {
      if (k < rank.size()) {
        for (const Load& l : rank[k].cp) v.push_back(TotalAttentionPairs(l));
      }
    }
    if (v.empty()) return worst;
    double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    for (double x : v) worst = std::max(worst, std::max(x / mean, mean / std::max(x, 1.0)));
  }
}

TEST(DistCa, BalancesAttentionWhereWlbCannot) {
  std::vector<int64_t> docs(192, 1024);
  docs.insert(docs.begin() + 50, 65536);  // one long document: its micro-batch is a straggler
  DataShape shape{.dp = 4, .cp = 2, .micro_batch = 1, .micro_batches = 1, .seq_len = 32768, .max_len = 65536};
  StepData wlb = Schedule("wlb", docs, shape);
  StepData ca = Schedule("distca", docs, shape);
  EXPECT_GT(WorstAttentionSpread(wlb), 2.0);
  EXPECT_LT(WorstAttentionSpread(ca), 1.05);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(ca), TotalAttentionPairs(wlb));
  // Moved attention ships bytes, and every row shipped out arrives somewhere.
  int64_t out = 0, in = 0;
  for (const auto& rank : ca.dp) {
    for (const MicroBatch& mb : rank) {
      for (const Load& l : mb.cp) {
        out += l.server_q_tokens_out;
        in += l.server_q_tokens_in;
      }
    }
  }
  EXPECT_GT(out, 0);
  EXPECT_EQ(out, in);
}

// Spread of per-GPU tokens for each micro-batch index over all DP x CP GPUs: max / min.
double WorstTokenSpread(const StepData& s) {
  double worst = 1;
  for (size_t k = 0;; ++k) {
    std::vector<double> v;
    for (const auto& rank : s.dp) {
      if (k < rank.size()) {
        for (const Load& l : rank[k].cp) v.push_back(static_cast<double>(l.tokens));
      }
    }
    if (v.empty()) return worst;
    worst = std::max(worst, *std::max_element(v.begin(), v.end()) / *std::min_element(v.begin(), v.end()));
  }
}

// DistCA balances the linear part by token count (attention is rebalanced on the servers);
// wlb balances tokens + attention, so on a skewed batch its micro-batches differ in tokens.
TEST(DistCa, PlacesDocumentsForEqualTokens) {
  std::vector<int64_t> docs = SkewedDocs(21, 1 << 22);
  for (int cp : {1, 2}) {
    // Room to balance: 4M tokens in 8 x 3 micro-batches of up to 256K (~175K each), documents <= 64K.
    DataShape shape{.dp = 8, .cp = cp, .micro_batches = 3, .seq_len = 262144, .max_len = 65536};
    StepData wlb = Schedule("wlb", docs, shape);
    StepData ca = Schedule("distca", docs, shape);
    EXPECT_LT(WorstTokenSpread(ca), 1.02) << "cp " << cp;
    EXPECT_GT(WorstTokenSpread(wlb), 1.1) << "cp " << cp;  // 1.14 here
    EXPECT_EQ(Count(ca).micro_batches, Count(wlb).micro_batches);
    EXPECT_LT(WorstAttentionSpread(ca), 1.1) << "cp " << cp;  // and attention still rebalanced
  }
}

TEST(DistCa, FewerDocumentsThanMicroBatchesLosesNoWork) {
  std::vector<int64_t> docs = {30000, 500, 700};
  DataShape shape{.dp = 4, .cp = 2, .micro_batches = 4, .seq_len = 32768};
  StepData s = Schedule("distca", docs, shape);
  EXPECT_DOUBLE_EQ(TotalAttentionPairs(s), CausalSum(docs));
  EXPECT_EQ(Count(s).micro_batches, 16);  // split at token level: every slot gets its 1,950 tokens
  EXPECT_LT(WorstTokenSpread(s), 1.01);
}

// The paper's placement for the linear layers: documents split at token level, so every GPU computes
// the same number of tokens even when the longest document is longer than a replica's share (which a
// document-level packer must give a micro-batch of its own). The later pieces of a split document
// receive the K/V of its earlier pieces from the GPUs that hold them.
TEST(DistCa, TokenLevelSplitEvensTokensPastTheLongestDocument) {
  std::vector<int64_t> docs = SkewedDocs(5, 1 << 20);
  docs.insert(docs.begin() + 7, 400000);  // > a replica's share of ~1.4M / 8
  const int64_t total = Sum(docs);
  for (int cp : {1, 2}) {
    DataShape shape{.dp = 8, .cp = cp, .micro_batches = 1, .seq_len = 262144, .max_len = 400000};
    StepData ca = Schedule("distca", docs, shape);
    StepData wlb = Schedule("wlb", docs, shape);
    EXPECT_LT(WorstTokenSpread(ca), 1.02) << "cp " << cp;
    EXPECT_GT(WorstTokenSpread(wlb), 1.5) << "cp " << cp;  // the long document's micro-batch
    EXPECT_EQ(Count(ca).real, total);
    EXPECT_NEAR(TotalAttentionPairs(ca), CausalSum(docs), CausalSum(docs) * 1e-12);
    int64_t kv_in = 0, kv_out = 0;
    for (const auto& rank : ca.dp)
      for (const MicroBatch& mb : rank)
        for (const Load& l : mb.cp) {
          kv_in += l.server_kv_tokens_in;
          kv_out += l.server_kv_tokens_out;
        }
    EXPECT_GT(kv_in, 150000);  // the long document spans 3+ slots: its third piece gets a full slot of K/V
    EXPECT_EQ(kv_in, kv_out);
  }
}

// pack_nomask (Megatron-LM without reset_attention_mask): every row, the padded last one too, is
// one dense causal sequence of seq_len, so attention = rows x seq_len (seq_len + 1) / 2 exactly,
// at any CP degree (zigzag pieces add up to the row's causal pairs).
TEST(PackNoMask, AttendsOverWholeRows) {
  std::vector<int64_t> docs = SkewedDocs(5, 1 << 20);
  const int64_t seq_len = 32768;
  const int64_t rows = (Sum(docs) + seq_len - 1) / seq_len;
  for (int cp : {1, 2, 4}) {
    DataShape shape{.dp = 4, .cp = cp, .micro_batch = 2, .seq_len = seq_len, .max_len = 65536};
    StepData s = Schedule("pack_nomask", docs, shape);
    StepData masked = Schedule("pack", docs, shape);
    Totals t = Count(s);
    EXPECT_EQ(t.tokens, rows * seq_len);
    EXPECT_EQ(t.real, Sum(docs));
    EXPECT_EQ(TotalAttentionPairs(s), static_cast<double>(rows) * CausalSum({seq_len})) << "cp " << cp;
    EXPECT_GT(TotalAttentionPairs(s), TotalAttentionPairs(masked));  // cross-document pairs paid
    EXPECT_EQ(t.tokens, Count(masked).tokens);                       // same rows as pack
    int sequences = 0;
    for (const auto& rank : s.dp) {
      for (const MicroBatch& mb : rank) sequences += mb.sequences;
    }
    EXPECT_EQ(sequences, rows);
  }
  // Hand-built: rows [6 4] [5 | pad 5] of seq_len 10 -> 2 x 55 pairs (pack: 21 + 10 + 15).
  StepData s = Schedule("pack_nomask", {6, 9}, DataShape{.micro_batch = 2, .seq_len = 10});
  EXPECT_EQ(TotalAttentionPairs(s), 110.0);
  EXPECT_EQ(TotalAttentionPairs(Schedule("pack", {6, 9}, DataShape{.micro_batch = 2, .seq_len = 10})), 46.0);
}

// seq_len is the row length BEFORE context-parallel splitting (the uniform training model): a
// micro-batch holds micro_batch rows, a GPU of the CP group seq_len x micro_batch / cp tokens.
// The budgeted policies default to the same per-GPU amount.
TEST(DataShape, SeqLenIsTheRowBeforeContextParallelSplitting) {
  std::vector<int64_t> docs(600, 1000);
  const int64_t seq_len = 8192;
  for (int cp : {1, 2, 4}) {
    DataShape shape{.dp = 2, .cp = cp, .micro_batch = 2, .micro_batches = 4, .seq_len = seq_len};
    const int64_t per_gpu = seq_len * shape.micro_batch / cp;
    for (const char* name : {"pack", "pack_nomask", "wlb", "distca", "skrull"}) {
      StepData s = Schedule(name, docs, shape);
      int64_t most = 0;
      for (const auto& rank : s.dp) {
        for (const MicroBatch& mb : rank) {
          for (const Load& l : mb.cp) most = std::max(most, l.tokens);
        }
      }
      EXPECT_LE(most, per_gpu) << name << " cp " << cp;
      // Full rows are full: the packers reach the per-GPU amount, the balancers come close.
      if (std::string(name).starts_with("pack")) {
        EXPECT_EQ(most, per_gpu) << name << " cp " << cp;
      }
      EXPECT_GT(most, per_gpu * 9 / 10) << name << " cp " << cp;
    }
    // chunkflow: one chunk (one row of chunk_size, default seq_len) per micro-batch.
    StepData c = Schedule("chunkflow", docs, shape);
    for (const auto& rank : c.dp) {
      for (const MicroBatch& mb : rank) {
        for (const Load& l : mb.cp) EXPECT_LE(l.tokens, (seq_len + cp - 1) / cp);
      }
    }
  }
  // skrull's default budget (rounded up) holds a full row's zigzag share when cp does not divide it.
  StepData s = Schedule("skrull", {1000, 1000, 7}, DataShape{.dp = 1, .cp = 3, .seq_len = 1000});
  EXPECT_EQ(Count(s).real, 2007);
  // An explicit budget still wins: wlb's micro-batch then holds cp x token_budget.
  const std::vector<int64_t> six(6, 1000);
  DataShape wide{.dp = 1, .cp = 2, .micro_batches = 1, .seq_len = 1000, .token_budget = 3000};
  EXPECT_EQ(Count(Schedule("wlb", six, wide)).micro_batches, 1);
  EXPECT_EQ(Count(Schedule("wlb", six, DataShape{.dp = 1, .cp = 2, .seq_len = 1000})).micro_batches, 6);
}

TEST(Wlb, BalancesWorkloadAcrossDataParallelRanks) {
  std::vector<int64_t> docs = SkewedDocs(21, 1 << 22);
  DataShape shape{.dp = 16, .cp = 1, .micro_batches = 4, .seq_len = 32768, .max_len = 65536};
  auto work = [&](const StepData& s) {
    std::vector<double> w;
    for (const auto& rank : s.dp) {
      double x = 0;
      for (const MicroBatch& mb : rank) {
        x += static_cast<double>(mb.cp[0].tokens) + TotalAttentionPairs(mb) / shape.pairs_per_token;
      }
      w.push_back(x);
    }
    return *std::max_element(w.begin(), w.end()) / *std::min_element(w.begin(), w.end());
  };
  StepData wlb = Schedule("wlb", docs, shape);
  StepData pack = Schedule("pack", docs, shape);
  EXPECT_LT(work(wlb), 1.05);
  EXPECT_GT(work(pack), work(wlb));
  for (const auto& rank : wlb.dp) EXPECT_EQ(rank.size(), wlb.dp[0].size());
}

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, EveryTokenOnceAndDeterministic) {
  std::vector<int64_t> docs = SkewedDocs(3, 1 << 20);
  for (int cp : {1, 2, 4}) {
    DataShape shape{.dp = 8,
                    .cp = cp,
                    .micro_batch = 1,
                    .micro_batches = 4,
                    .seq_len = 32768,
                    .max_len = 65536,
                    .chunk_size = 8192,
                    .token_budget = 65536};
    StepData a = Schedule(GetParam(), docs, shape);
    Totals t = Count(a);
    EXPECT_EQ(t.real, Sum(docs)) << "cp " << cp;
    EXPECT_EQ(a.documents, static_cast<int>(docs.size()));
    ASSERT_EQ(a.dp.size(), 8u);
    for (const auto& rank : a.dp) {
      for (const MicroBatch& mb : rank) EXPECT_EQ(mb.cp.size(), static_cast<size_t>(cp));
    }
    if (GetParam() != "pad" && GetParam() != "pad_attention" && GetParam() != "pack" &&
        GetParam() != "pack_nomask") {
      // Document-masked, unsplit (or split with the earlier chunks visible):
      // exact causal sum.
      EXPECT_NEAR(TotalAttentionPairs(a), CausalSum(docs), CausalSum(docs) * 1e-12) << "cp " << cp;
    }
    if (cp > 1 && GetParam() != "skrull") {  // skrull keeps documents that fit the budget local
      EXPECT_GT(t.cp_kv, 0);
    }
    StepData b = Schedule(GetParam(), docs, shape);
    EXPECT_EQ(Count(b).tokens, t.tokens);
    EXPECT_EQ(TotalAttentionPairs(b), TotalAttentionPairs(a));
    for (size_t d = 0; d < a.dp.size(); ++d) {
      ASSERT_EQ(a.dp[d].size(), b.dp[d].size());
      for (size_t m = 0; m < a.dp[d].size(); ++m) {
        for (size_t r = 0; r < a.dp[d][m].cp.size(); ++r) {
          EXPECT_EQ(a.dp[d][m].cp[r].tokens, b.dp[d][m].cp[r].tokens);
          EXPECT_EQ(a.dp[d][m].cp[r].attention.size(), b.dp[d][m].cp[r].attention.size());
        }
      }
    }
  }
}

TEST_P(EveryPolicy, BadInputIsAnError) {
  DataPolicyRegistry reg("data-policy");
  RegisterDataPolicies(reg);
  auto p = reg.Create(GetParam());
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE((*p)->Schedule({10, 0, 5}, DataShape{}).ok());
  EXPECT_FALSE((*p)->Schedule({10}, DataShape{.dp = 0}).ok());
  EXPECT_FALSE((*p)->Schedule({10}, DataShape{.seq_len = 0}).ok());
  auto empty = (*p)->Schedule({}, DataShape{.dp = 2});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->computed_tokens, 0);
}

INSTANTIATE_TEST_SUITE_P(Builtins, EveryPolicy,
                         ::testing::Values("pad", "pad_attention", "pack", "pack_nomask", "padding_free",
                                           "chunkflow", "skrull", "wlb", "distca"));

}  // namespace
}  // namespace dlsim::data
