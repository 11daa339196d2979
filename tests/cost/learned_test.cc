// Tests of the learned GEMM latency model: tree evaluation and its file format, KMeans sample
// selection, a byte-identical XGBoost fit, and the shipped model file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "dlsim/cost/learned_fit.h"
#include "dlsim/cost/tree_ensemble.h"
#include "dlsim/io/calibration_loader.h"
#include "profiles.h"

namespace dlsim::cost {
namespace {

std::string TwoTrees() {
  return "# test\nfeatures 2 a b\nbase_score 0.5\ntrees 2\n"
         "tree 0 nodes 3\n1 2 0 1.5\n-1 -1 0 1\n-1 -1 0 2\n"
         "tree 1 nodes 1\n-1 -1 0 0.25\n";
}

TEST(TreeEnsemble, PredictsBaseScorePlusOneLeafPerTree) {
  auto m = ParseTreeEnsemble(TwoTrees(), "two.txt");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_DOUBLE_EQ(m->Predict({1.0, 0}), 0.5 + 1 + 0.25);  // 1.0 < 1.5: left
  EXPECT_DOUBLE_EQ(m->Predict({1.5, 0}), 0.5 + 2 + 0.25);  // not less: right
  EXPECT_EQ(m->header, "# test\n");
  auto again = ParseTreeEnsemble(m->ToText(), "again.txt");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ToText(), m->ToText());
}

TEST(TreeEnsemble, BadFilesAreLocatedErrors) {
  const std::pair<std::string, std::string> cases[] = {
      {"features 0\n", "bad.txt:1: expected 'features N'"},
      {"features 1 a\nbase_score x\n", "bad.txt:2: expected 'base_score V'"},
      {"features 1 a\nbase_score 0\ntrees 1\ntree 0 nodes 2\n0 1 0 1\n", "children after their parent"},
      {"features 1 a\nbase_score 0\ntrees 1\ntree 0 nodes 1\n-1 -1 3 1\n", "feature 0..0"},
      {"features 1 a\nbase_score 0\ntrees 0\nextra\n", "end of file after 0 trees"},
  };
  for (const auto& [text, want] : cases) {
    auto m = ParseTreeEnsemble(text, "bad.txt");
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_NE(m.error().message.find(want), std::string::npos) << m.error().message;
  }
}

LearnSet Clusters() {
  LearnSet s;
  for (int i = 0; i < 40; ++i) {
    std::vector<double> row(kGemmFeatureCount, 0.0);
    row[0] = (i < 30 ? 0.0 : 100.0) + 0.01 * i;
    s.x.insert(s.x.end(), row.begin(), row.end());
    s.label.push_back(0);
    s.tile_s.push_back(1);
    s.measured_s.push_back(1);
  }
  return s;
}

TEST(KMeansSelect, OneRowPerClusterDeterministic) {
  const LearnSet s = Clusters();
  const auto pick = KMeansSelect(s, 2, 7);
  ASSERT_EQ(pick.size(), 2u);
  EXPECT_LT(pick[0], 30u);  // one from the 30-row cluster
  EXPECT_GE(pick[1], 30u);  // one from the 10-row cluster
  EXPECT_EQ(KMeansSelect(s, 2, 7), pick);
  EXPECT_EQ(KMeansSelect(s, 50, 7).size(), 40u);
  EXPECT_TRUE(KMeansSelect(s, 0, 7).empty());
}

std::vector<GemmProfileRow> SomeRows(size_t stride) {
  std::ifstream in(std::string(DLSIM_DATA_DIR) + "/profiles/vidur_gemm.csv");
  std::stringstream text;
  text << in.rdbuf();
  auto rows = ParseGemmProfiles(text.str(), "vidur_gemm.csv");
  EXPECT_TRUE(rows.ok()) << rows.error().message;
  std::vector<GemmProfileRow> out;
  for (size_t i = 0; rows.ok() && i < rows->size(); i += stride) out.push_back((*rows)[i]);
  return out;
}

TEST(FitEnsemble, ByteIdenticalAcrossTwoFitsAndBetterThanTheTileModel) {
  const std::map<std::string, hw::GpuSpec> gpus = {{"a100", fit::ProfiledGpu("ampere")},
                                                   {"h100", fit::ProfiledGpu("hopper")}};
  const LearnSet set = MakeProfileSet(SomeRows(16), gpus);
  ASSERT_GT(set.rows(), 200u);
  const LearnOptions o{.rounds = 20, .max_depth = 4};
  auto a = FitEnsemble(set, o), b = FitEnsemble(set, o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->trees.size(), 20u);
  EXPECT_EQ(a->ToText(), b->ToText());
  EXPECT_LT(LearnedMape(*a, set), LearnedMape(TreeEnsemble{.features = GemmFeatureNames()}, set));
}

TEST(GemmProfiles, BadRowsAreLocatedErrors) {
  auto r = ParseGemmProfiles("gpu,model,op,tp,m,n,k,us\na100,x,y,1,0,2,3,4\n", "p.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("p.csv:2: column 'm': expected a positive integer"), std::string::npos);
  EXPECT_FALSE(ParseGemmProfiles("gpu,model\n", "p.csv").ok());
  EXPECT_FALSE(ParseGemmProfiles("gpu,model,op,tp,m,n,k,us\na100,x,y,1,1,2,3,-4\n", "p.csv").ok());
}

TEST(LearnedModelFile, ShippedModelIsLoadedWithTheCalibration) {
  auto cal = io::LoadDefaultComputeCalibration();
  ASSERT_TRUE(cal.ok());
  ASSERT_NE(cal->learned_gemm, nullptr);
  EXPECT_EQ(cal->learned_gemm->features, GemmFeatureNames());
  EXPECT_GT(cal->learned_gemm->trees.size(), 0u);
  EXPECT_NE(cal->learned_gemm->header.find("Fitted by: dlsim-fit learned"), std::string::npos);
}

// FitRegression on any features: a step in the second of two features is learned exactly (boosting's
// residual shrinks by 1 - eta per round), the ensemble carries the names, and a ragged x is an error.
TEST(FitRegression, LearnsAStepFunctionOfNamedFeatures) {
  RegressionSet set{{"noise", "x"}, {}, {}};
  for (int i = 0; i < 40; ++i) {
    const double x = i / 40.0;
    set.x.insert(set.x.end(), {static_cast<double>(i % 7), x});
    set.y.push_back(x < 0.5 ? 1.0 : 3.0);
  }
  auto m = FitRegression(set, {.rounds = 200, .max_depth = 2});
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->features, set.names);
  EXPECT_NEAR(m->Predict({3, 0.1}), 1.0, 1e-3);
  EXPECT_NEAR(m->Predict({3, 0.9}), 3.0, 1e-3);
  set.x.pop_back();
  auto bad = FitRegression(set, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("expected rows x features = 80"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace dlsim::cost
