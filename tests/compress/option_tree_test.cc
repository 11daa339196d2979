// Espresso's decision tree: the pruning rules hold on every surviving option, and the counts are those
// docs/reproductions.md (ByteComp) explains against the paper's 4341.
#include "dlsim/studies/compress/option_tree.h"

#include <gtest/gtest.h>

#include <set>

namespace dlsim::compress {
namespace {

TEST(OptionTree, PrunesToTheDocumentedCounts) {
  const OptionTree tree = EnumerateOptions();
  // 4 scheme shapes x 7^p collectives x 4^(p+1) transitions, p = 1..4 phases.
  EXPECT_EQ(tree.raw_paths, 7 * 16 + 49 * 64 + 343 * 256 + 2401 * 1024);
  EXPECT_LT(tree.after_rule2, tree.raw_paths);
  EXPECT_LT(tree.after_rule3, tree.after_rule2);
  EXPECT_EQ(tree.after_rule1, 90);
  EXPECT_EQ(tree.options.size(), 1605u);  // paper: 4341 (docs/reproductions.md, ByteComp)
  std::set<std::string> labels;
  for (const Option& o : tree.options) labels.insert(o.Label());
  EXPECT_EQ(labels.size(), tree.options.size());  // no duplicates
}

TEST(OptionTree, EveryOptionObeysTheRules) {
  for (const Option& o : EnumerateOptions().options) {
    bool compressed = false, must_decompress = false;
    for (const Op& op : o.ops) {
      if (op.kind == OpKind::kCompress) {
        EXPECT_FALSE(compressed) << o.Label();
        compressed = true;
        continue;
      }
      if (op.kind == OpKind::kDecompress) {
        EXPECT_TRUE(compressed) << o.Label();
        compressed = must_decompress = false;
        continue;
      }
      EXPECT_FALSE(must_decompress) << "aggregation without decompression: " << o.Label();
      EXPECT_EQ(op.compressed, compressed) << o.Label();
      const bool ut_only = op.routine == Routine::kAllReduce || op.routine == Routine::kReduceScatter ||
                           op.routine == Routine::kReduce;
      if (ut_only) {
        EXPECT_FALSE(op.compressed) << o.Label();
      }
      if (op.routine == Routine::kAllToAll || op.routine == Routine::kGather) {
        EXPECT_TRUE(op.compressed);
      }
      if (o.hierarchical && op.scope == Scope::kIntra) {
        EXPECT_NE(op.role, StepRole::kIndivisible);
      }
      must_decompress = op.compressed && op.role != StepRole::kSecond;
    }
    EXPECT_FALSE(compressed) << "ends compressed: " << o.Label();
  }
}

TEST(OptionTree, ContainsTheKnownSchemesAndTheirCpuCounterparts) {
  const OptionTree tree = EnumerateOptions();
  auto find = [&](const std::string& label) {
    for (size_t i = 0; i < tree.options.size(); ++i)
      if (tree.options[i].Label() == label) return static_cast<int>(i);
    return -1;
  };
  EXPECT_GE(find("flat: AR"), 0);
  EXPECT_GE(find("hier: RS@intra | AR@inter | AG@intra"), 0);
  EXPECT_EQ(find("flat: A2A*"), -1);  // compressed data needs compressing first
  const int hipress = find("flat: gpu-comp | A2A* | gpu-decomp | gpu-comp | AG* | gpu-decomp");
  ASSERT_GE(hipress, 0);
  const int cpu = CpuCounterpart(tree, hipress);
  ASSERT_GE(cpu, 0);
  EXPECT_EQ(tree.options[cpu].Label(), "flat: cpu-comp | A2A* | cpu-decomp | cpu-comp | AG* | cpu-decomp");
  EXPECT_EQ(CpuCounterpart(tree, find("flat: AR")), -1);
}

}  // namespace
}  // namespace dlsim::compress
