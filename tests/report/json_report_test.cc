#include "dlsim/report/json_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

namespace dlsim::report {
namespace {

TEST(RoundSignificantTest, Table) {
  struct Case {
    double in;
    int digits;
    double out;
  };
  const Case cases[] = {
      {0.1 + 0.2, 9, 0.3},
      {1.0 / 3.0, 3, 0.333},
      {123456789012.0, 9, 123456789000.0},
      {-2.0 / 3.0, 2, -0.67},
      {1e-300 / 3, 1, 3e-301},
      {-0.0, 9, 0.0},
      {0.12345678949, 9, 0.123456789},
      {987.65, 1, 1000.0},
  };
  for (const Case& c : cases) EXPECT_EQ(RoundSignificant(c.in, c.digits), c.out) << c.in << " @" << c.digits;
  EXPECT_FALSE(std::signbit(RoundSignificant(-0.0, 9)));
  EXPECT_TRUE(std::isnan(RoundSignificant(std::nan(""), 9)));
}

TEST(JsonReportTest, KeepsInsertionOrderAndIndents) {
  JsonReport r;
  r.Set("zeta", 1).Set("alpha", "a").Set("feasible", true);
  r.Object("memory")["weights_bytes"] = 2.0;
  r.Object("memory")["activations_bytes"] = 1;
  r.Set("list", std::vector<int>{1, 2});
  EXPECT_EQ(r.Dump(),
            "{\n"
            "  \"zeta\": 1,\n"
            "  \"alpha\": \"a\",\n"
            "  \"feasible\": true,\n"
            "  \"memory\": {\n"
            "    \"weights_bytes\": 2.0,\n"
            "    \"activations_bytes\": 1\n"
            "  },\n"
            "  \"list\": [\n"
            "    1,\n"
            "    2\n"
            "  ]\n"
            "}\n");
}

TEST(JsonReportTest, FloatNoiseDoesNotChangeBytes) {
  JsonReport a, b;
  a.Set("step_time_s", 0.1 + 0.2).Object("nested")["x"] = std::vector<double>{1.0 / 3.0};
  b.Set("step_time_s", 0.3).Object("nested")["x"] = std::vector<double>{0.33333333333333331 + 1e-17};
  EXPECT_EQ(a.Dump(), b.Dump());
  EXPECT_NE(a.Dump().find("\"step_time_s\": 0.3,"), std::string::npos) << a.Dump();
  EXPECT_NE(a.Dump().find("0.333333333\n"), std::string::npos) << a.Dump();
}

TEST(JsonReportTest, NonFiniteAndBadUtf8DoNotThrow) {
  JsonReport r;
  r.Set("nan", std::nan("")).Set("inf", std::numeric_limits<double>::infinity()).Set("s", "x\xff");
  const std::string text = r.Dump();
  EXPECT_NE(text.find("\"nan\": null"), std::string::npos) << text;
  EXPECT_NE(text.find("\"inf\": null"), std::string::npos) << text;
  EXPECT_NE(text.find("x\xEF\xBF\xBD"), std::string::npos) << text;
}

TEST(JsonReportTest, DigitsAreConfigurable) {
  JsonReport r(3);
  r.Set("v", 3.14159);
  EXPECT_EQ(r.Dump(), "{\n  \"v\": 3.14\n}\n");
}

TEST(JsonReportTest, WriteReportsStreamFailure) {
  JsonReport r;
  r.Set("a", 1);
  std::ostringstream ok;
  ASSERT_TRUE(r.Write(ok).ok());
  EXPECT_EQ(ok.str(), r.Dump());
  std::ostringstream bad;
  bad.setstate(std::ios::badbit);
  EXPECT_FALSE(r.Write(bad).ok());
}

}  // namespace
}  // namespace dlsim::report
