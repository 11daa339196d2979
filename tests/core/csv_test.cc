// The CSV reader of dlsim's data files: strict numbers and located errors.
#include "dlsim/core/csv.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

TEST(Csv, CellsAreLocatedByLineAndColumn) {
  auto t = ParseCsv("# source\na, b\n1,  22\n\n3,4\n", "f.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->header, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t->Where(0, 0), "f.csv:3:1");
  EXPECT_EQ(t->Where(0, 1), "f.csv:3:5");  // after the two spaces
  EXPECT_EQ(t->Where(1, 1), "f.csv:5:3");
  EXPECT_DOUBLE_EQ(t->Number(0, "b").value(), 22);
}

// strtod accepted hex, inf and nan; the data files hold decimal numbers only.
TEST(Csv, NumbersAreFiniteDecimals) {
  auto t = ParseCsv("v\n0x10\ninf\nnan\n1e400\n+2.5\n", "f.csv");
  ASSERT_TRUE(t.ok());
  for (size_t r = 0; r < 4; ++r) {
    auto v = t->Number(r, "v");
    ASSERT_FALSE(v.ok()) << r;
    EXPECT_NE(v.error().message.find("f.csv:" + std::to_string(r + 2) + ":1: column 'v': expected a number"),
              std::string::npos)
        << v.error().message;
  }
  EXPECT_DOUBLE_EQ(t->Number(4, "v").value(), 2.5);
}

// "12,500" is three cells, never 12: the row is an error that says why.
TEST(Csv, ThousandsSeparatorIsAColumnCountError) {
  auto t = ParseCsv("n,m\n\"12,500\",100\n", "f.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "f.csv:2: expected 2 columns (n, m), found 3 (a comma always separates columns: write 12500, not "
            "12,500)");
  auto quoted = ParseCsv("n\n\"12500\"\n", "f.csv");
  ASSERT_TRUE(quoted.ok());
  EXPECT_NE(quoted->Number(0, "n").error().message.find("(cells are not quoted)"), std::string::npos);
}

// A repeated header name made the second column unreachable; a BOM (Excel's UTF-8 export) glued
// itself to the first column's name.
TEST(Csv, DuplicateHeaderColumnIsAnError) {
  auto t = ParseCsv("# note\na,b,a\n1,2,3\n", "f.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(
      t.error().message,
      "f.csv:2: column 'a' appears twice in the header (columns 1 and 3); each column name must be unique");
}

TEST(Csv, ByteOrderMarkIsSkipped) {
  auto t = ParseCsv(
      "\xEF\xBB\xBF"
      "a,b\n1,2\n",
      "f.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->header, (std::vector<std::string>{"a", "b"}));
  EXPECT_DOUBLE_EQ(t->Number(0, "a").value(), 1);
}

}  // namespace
}  // namespace dlsim
