#include "dlsim/report/table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace dlsim::report {
namespace {

TEST(TableTest, GoldenLayout) {
  Table t("Memory per pipeline stage");
  t.AddColumn("Stage").AddColumn("Weights", "GiB").AddColumn("Activations", "GiB").AddColumn("Bottleneck");
  t.AddRow({"0", "12.00", "30.50", "attention"});
  t.AddRow({"1", "8.25", "112.00", "mlp"});
  t.AddSeparator();
  t.AddRow({"max", "12.00", "112.00"});
  EXPECT_EQ(t.Render(),
            "Memory per pipeline stage\n"
            "Stage  Weights (GiB)  Activations (GiB)  Bottleneck\n"
            "---------------------------------------------------\n"
            "0              12.00              30.50  attention\n"
            "1               8.25             112.00  mlp\n"
            "---------------------------------------------------\n"
            "max            12.00             112.00\n");
}

TEST(TableTest, AutoAlignmentRecognisesNumbersWithUnits) {
  Table t;
  t.AddColumn("Phase").AddColumn("Time").AddColumn("Share");
  t.AddRow({"forward", "1.234 s", "45.0%"});
  t.AddRow({"optimizer", "12.500 ms", "n/a"});
  t.AddRow({"bubble", "-", "-3.5%"});
  EXPECT_EQ(t.Render(),
            "Phase           Time  Share\n"
            "---------------------------\n"
            "forward      1.234 s  45.0%\n"
            "optimizer  12.500 ms    n/a\n"
            "bubble             -  -3.5%\n");
}

TEST(TableTest, ExplicitAlignmentAndUtf8Width) {
  Table t;
  t.AddColumn("Id", "", Align::kLeft).AddColumn("Unit", "", Align::kRight);
  t.AddRow({"7", "µs"});
  t.AddRow({"12345", "ms"});
  std::ostringstream out;
  out << t;
  EXPECT_EQ(out.str(),
            "Id     Unit\n"
            "-----------\n"
            "7        µs\n"
            "12345    ms\n");
}

TEST(TableTest, MissingCellsAreBlankAndEmptyTableRenders) {
  Table t("Empty");
  EXPECT_EQ(t.Render(), "Empty\n\n-\n");
  Table u;
  u.AddColumn("a").AddColumn("b");
  u.AddRow({"x"});
  EXPECT_EQ(u.Render(), "a  b\n----\nx\n");
}

TEST(DisplayWidthTest, CountsCodePoints) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("µs"), 2u);
  EXPECT_EQ(DisplayWidth("1.0 µs"), 6u);
}

}  // namespace
}  // namespace dlsim::report
