// The published-measurement bounds of issue 3, asserted in CI.
#include "dlsim/validate/validation.h"

#include <gtest/gtest.h>

#include "dlsim/io/catalog_loader.h"

namespace dlsim::validate {
namespace {

class ValidationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto catalogs = io::LoadCatalogs({});
    ASSERT_TRUE(catalogs.ok()) << catalogs.error().message;
    auto sets = RunValidation(*catalogs);
    ASSERT_TRUE(sets.ok()) << sets.error().message;
    sets_ = new std::vector<ValidationSet>(std::move(sets).value());
  }
  static void TearDownTestSuite() { delete sets_; }
  static const ValidationSet& Set(const std::string& name) {
    for (const auto& s : *sets_)
      if (s.name == name) return s;
    ADD_FAILURE() << "no set " << name;
    static ValidationSet empty;
    return empty;
  }
  static void ExpectBound(const std::string& name, double bound) {
    const ValidationSet& s = Set(name);
    ASSERT_FALSE(s.rows.empty());
    std::string detail;
    for (const auto& r : s.rows) detail += "  " + r.label + ": " + std::to_string(r.ErrorPct()) + "%\n";
    EXPECT_LE(s.Mape(), bound) << name << " MAPE " << s.Mape() << "%\n" << detail;
  }
  static std::vector<ValidationSet>* sets_;
};
std::vector<ValidationSet>* ValidationTest::sets_ = nullptr;

TEST_F(ValidationTest, Megatron2021Table1StepTime) { ExpectBound("megatron-2021-table1", 5.0); }
TEST_F(ValidationTest, Korthikanti2022FullRecompute) { ExpectBound("korthikanti-2022-full", 5.0); }
TEST_F(ValidationTest, Korthikanti2022SeqSelective) { ExpectBound("korthikanti-2022-seq-sel", 5.0); }
TEST_F(ValidationTest, VtrainSingleNode) { ExpectBound("vtrain-single-node", 8.0); }
TEST_F(ValidationTest, Nemo2407H100Fp8) { ExpectBound("nemo-24.07-h100-fp8", 10.0); }

// Memory components within 10% of Korthikanti et al. Figure 1, each row.
TEST_F(ValidationTest, Korthikanti2022MemoryComponents) {
  const ValidationSet& s = Set("korthikanti-2022-memory");
  ASSERT_EQ(s.rows.size(), 12u);
  for (const auto& r : s.rows) EXPECT_LE(std::fabs(r.ErrorPct()), 10.0) << r.label;
}

TEST_F(ValidationTest, EveryRowHasAPrediction) {
  for (const auto& s : *sets_)
    for (const auto& r : s.rows) EXPECT_GT(r.predicted, 0) << s.name << " " << r.label << " " << r.note;
}

}  // namespace
}  // namespace dlsim::validate
