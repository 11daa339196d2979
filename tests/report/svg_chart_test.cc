#include "dlsim/report/svg_chart.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dlsim/report/html_page.h"
#include "dlsim/report/timeline_recorder.h"
#include "svg_frame.h"  // private to src/report

namespace dlsim::report {
namespace {

// A small XML well-formedness check: every start tag is closed in order (self-closing tags
// close themselves), attributes are quoted, and no stray '<' or '&' appears in text.
bool WellFormed(const std::string& xml, std::string* why) {
  std::vector<std::string> open;
  for (size_t i = 0; i < xml.size(); ++i) {
    if (xml[i] == '&') {
      const size_t semi = xml.find(';', i);
      if (semi == std::string::npos || semi - i > 6) return *why = "bare & at " + std::to_string(i), false;
      continue;
    }
    if (xml[i] != '<') continue;
    const size_t end = xml.find('>', i);
    if (end == std::string::npos) return *why = "unclosed tag", false;
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end;
    if (tag.empty() || tag[0] == '!' || tag[0] == '?') continue;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1))
        return *why = "mismatched </" + tag.substr(1) + ">", false;
      open.pop_back();
      continue;
    }
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0)
      return *why = "unbalanced quotes in <" + tag + ">", false;
    if (tag.back() == '/') continue;
    open.push_back(tag.substr(0, tag.find_first_of(" \n")));
  }
  if (!open.empty()) return *why = "unclosed <" + open.back() + ">", false;
  return true;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(NiceTicks, OneTwoFiveStepsCoveringTheRange) {
  const std::vector<double> unit = svg::NiceTicks({0, 1, false}, 5);  // raw step 0.2
  ASSERT_EQ(unit.size(), 6u);
  for (size_t i = 0; i < unit.size(); ++i) EXPECT_NEAR(unit[i], 0.2 * i, 1e-12);
  EXPECT_EQ(svg::NiceTicks({0, 100, false}, 4), (std::vector<double>{0, 50, 100}));  // raw 25 -> 50
  // Raw step 14.7 / 6 = 2.45 -> 5; the ticks are the multiples of 5 inside [3.2, 17.9].
  EXPECT_EQ(svg::NiceTicks({3.2, 17.9, false}, 6), (std::vector<double>{5, 10, 15}));
  EXPECT_EQ(svg::NiceTicks({-3, 3, false}, 3), (std::vector<double>{-2, 0, 2}));  // raw 2 -> 2
}

// A log x axis (issue 36: the cluster JCT CDF over 0-2,700 h was unreadable on a linear axis): ticks at the
// powers of ten the data spans, points at x <= 0 dropped, the same x spacing for each decade.
TEST(LineChart, LogXTicksAtDecadesAndDropsNonPositiveX) {
  const Series s{"jct", {-1, 0, 0.5, 5, 50, 500, 5000}, {0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0}, true};
  const std::string svg =
      LineChart({.title = "CDF", .x = {"JCT", "h"}, .y = {"fraction"}, .log_x = true}, {s});
  std::string why;
  EXPECT_TRUE(WellFormed(svg, &why)) << why;
  for (const char* tick : {">1<", ">10<", ">100<", ">1000<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find(">2000<"), std::string::npos);  // no linear ticks
  // Five drawable points, one per decade: equally spaced x pixels on the staircase's corners.
  const size_t at = svg.find("points=\"");
  ASSERT_NE(at, std::string::npos);
  std::vector<double> xs;
  std::string pts = svg.substr(at + 8, svg.find('"', at + 8) - at - 8);
  for (size_t p = 0; p < pts.size();) {
    xs.push_back(std::stod(pts.substr(p)));
    p = pts.find(' ', p);
    if (p == std::string::npos) break;
    ++p;
  }
  ASSERT_EQ(xs.size(), 9u);  // 5 points, 4 staircase corners
  EXPECT_NEAR(xs[2] - xs[0], xs[4] - xs[2], 0.2);
  EXPECT_NEAR(xs[8] - xs[6], xs[2] - xs[0], 0.2);
  // Without log_x the same data keeps the linear ticks.
  const std::string linear = LineChart({.title = "CDF", .x = {"JCT", "h"}, .y = {"fraction"}}, {s});
  EXPECT_NE(linear.find(">2000<"), std::string::npos);
}

TEST(Cdf, StepsThroughTheSortedSamples) {
  const Series s = Cdf("x", {3, 1, std::nan(""), 2});
  EXPECT_TRUE(s.step);
  EXPECT_EQ(s.x, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(s.y, (std::vector<double>{1.0 / 3, 2.0 / 3, 1}));
}

TEST(Cdf, ManySamplesBecomeEvenlySpacedQuantilesEndingAtOne) {
  std::vector<double> v;
  for (int i = 1000; i >= 1; --i) v.push_back(i);
  const Series s = Cdf("x", v, 11);
  ASSERT_EQ(s.x.size(), 11u);
  EXPECT_EQ(s.x.front(), 1);
  EXPECT_EQ(s.x.back(), 1000);
  EXPECT_EQ(s.y.back(), 1.0);
  EXPECT_EQ(s.x[5], 500);  // index 499 of 0..999: the median
}

TEST(Thin, KeepsTheEndsAndAtMostTheLimit) {
  Series s{"a"};
  for (int i = 0; i < 1001; ++i) s.x.push_back(i), s.y.push_back(i * i);
  const Series t = Thin(s, 100);
  EXPECT_LE(t.x.size(), 100u);
  EXPECT_EQ(t.x.front(), 0);
  EXPECT_EQ(t.x.back(), 1000);
  EXPECT_EQ(Thin(s, 5000).x.size(), 1001u);
}

TEST(XmlEscape, EscapesMarkupAndDropsControlCharacters) {
  EXPECT_EQ(XmlEscape("a<b & \"c\" 'd'>\x01\tz"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;\tz");
}

TEST(Charts, AreWellFormedWithHostileNamesAndNonFiniteValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const Series a{.name = "<script>&", .x = {0, 1, 2, 3}, .y = {1, std::nan(""), inf, 2}};
  const ChartSpec spec{.title = "t\"itle", .x = {"x", "s"}, .y = {"y", "%"}};
  std::string why;
  for (const std::string& svg :
       {LineChart(spec, {a}), ScatterChart(spec, {a}, {a}, {{1, 1, "best <1>"}}),
        StackedBarChart(spec, {"a&b", "c"}, {a}),
        TimelineChart(spec, {"lane <0>"}, {{0, 0, 1, "c&d", "x<y"}, {5, 0, 1, "ignored"}})}) {
    EXPECT_TRUE(WellFormed(svg, &why)) << why << "\n" << svg;
    EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
    EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
    EXPECT_EQ(svg.find("<script>"), std::string::npos);
  }
}

TEST(Charts, WithoutDataSaySoInsteadOfDrawingNothing) {
  const ChartSpec spec{.title = "empty", .x = {"x"}, .y = {"y"}};
  EXPECT_NE(LineChart(spec, {}).find("no data"), std::string::npos);
  EXPECT_NE(ScatterChart(spec, {}, {}, {}).find("no data"), std::string::npos);
  EXPECT_NE(TimelineChart(spec, {"a"}, {}).find("no data"), std::string::npos);
  EXPECT_EQ(LineChart(spec, {{.name = "one", .x = {1}, .y = {2}}}).find("no data"), std::string::npos);
}

TEST(Charts, DrawOneMarkPerElement) {
  const ChartSpec spec{.title = "t", .x = {"x"}, .y = {"y"}};
  const std::string tl = TimelineChart(spec, {"a", "b"}, {{0, 0, 1, "f"}, {1, 1, 2, "b"}, {1, 2, 3, "f"}});
  EXPECT_EQ(Count(tl, "<rect x="), 3u + 2u + 1u);  // spans, legend entries, the plot frame
  const std::string bars =
      StackedBarChart(spec, {"r0", "r1", "r2"}, {{"w", {}, {1, 2, 3}}, {"a", {}, {4, 5, 6}}});
  EXPECT_EQ(Count(bars, "<title>"), 1u + 6u + 2u);  // the chart's, one per bar segment and legend entry
  EXPECT_EQ(LineChart(spec, {{"s", {0, 1}, {0, 1}}}), LineChart(spec, {{"s", {0, 1}, {0, 1}}}));
}

// The width and height attributes of the <svg> element.
int SvgWidth(const std::string& svg) { return std::stoi(svg.substr(svg.find("width=\"") + 7)); }
int SvgHeight(const std::string& svg) { return std::stoi(svg.substr(svg.find("height=\"") + 8)); }

TEST(Legend, IsAsWideAsItsLongestNameAndShortensPastFortyCharacters) {
  const ChartSpec spec{.title = "t", .x = {"x"}, .y = {"y"}, .width = 600};
  const Series shrt{.name = "a", .x = {0, 1}, .y = {0, 1}};
  Series longer = shrt;
  longer.name = "waiting requests (bin maximum)";  // 30 characters: was clipped by a fixed 170 px column
  const svg::Frame narrow(spec, {0, 1, false}, {0, 1, false}, {shrt.name});
  const svg::Frame wide(spec, {0, 1, false}, {0, 1, false}, {longer.name});
  EXPECT_GT(narrow.right() - wide.right(), 29 * 6.0);  // the plot gives up the room the name needs
  EXPECT_LE(wide.right() + 32 + 30 * 6.6, 600 - 1);    // and the name's text ends inside the chart
  Series huge = shrt;
  huge.name = std::string(60, 'x');
  const std::string svg = LineChart(spec, {huge});
  EXPECT_EQ(SvgWidth(svg), 600);  // the legend fits in the width asked for
  EXPECT_NE(svg.find("<title>" + huge.name + "</title>"), std::string::npos);  // whole name on hover
  EXPECT_NE(svg.find(std::string(39, 'x') + "\u2026<"), std::string::npos);    // shown: 39 + ellipsis
  EXPECT_EQ(svg.find(">" + std::string(40, 'x') + "<"), std::string::npos);
}

TEST(Legend, MakesTheChartTallerWhenItsEntriesNeedTheRoom) {
  const ChartSpec spec{.title = "t", .x = {"x"}, .y = {"y"}, .height = 200};
  std::vector<Series> many;
  for (int i = 0; i < 30; ++i)
    many.push_back({.name = "replica " + std::to_string(i), .x = {0, 1}, .y = {0, 1}});
  EXPECT_EQ(SvgHeight(LineChart(spec, {many[0]})), 200);
  const std::string tall = LineChart(spec, many);
  EXPECT_GE(SvgHeight(tall), 34 + 8 + 30 * 18 + 48);  // every entry inside the chart
  EXPECT_EQ(Count(tall, ">replica 29<"), 2u);         // the entry's text and its hover title
}

TEST(StackedBarChart, CategoriesTooWideForTheirSlotsStandUprightInATallerChart) {
  const ChartSpec spec{.title = "t", .x = {"set"}, .y = {"MAPE", "%"}};
  const std::string fits = StackedBarChart(spec, {"a", "b"}, {{"s", {}, {1, 2}}});
  EXPECT_EQ(fits.find("rotate(-90 "), std::string::npos);
  EXPECT_EQ(SvgHeight(fits), 340);
  std::vector<std::string> names;
  for (int i = 0; i < 15; ++i)
    names.push_back("megatron-bridge-dense-b200-" + std::to_string(i));  // 29 chars
  const std::string wide = StackedBarChart(spec, names, {{"s", {}, std::vector<double>(15, 1.0)}});
  EXPECT_EQ(Count(wide, "rotate(-90 "), 15u);
  EXPECT_GE(SvgHeight(wide), 340 + 29 * 6);  // the plot keeps its height; the labels get their own room
  std::string why;
  EXPECT_TRUE(WellFormed(wide, &why)) << why;
}

TEST(RefLines, AreDrawnDashedAndTheAxisReachesThem) {
  const ChartSpec spec{.title = "t", .x = {"x"}, .y = {"y", "GiB"}, .y_refs = {{80, "GPU memory 80 GiB"}}};
  const std::string bars = StackedBarChart(spec, {"r0"}, {{"w", {}, {20}}});
  EXPECT_EQ(Count(bars, "stroke-dasharray"), 1u);
  EXPECT_NE(bars.find(">GPU memory 80 GiB<"), std::string::npos);
  EXPECT_NE(bars.find(">80<"), std::string::npos);  // a y tick at the line: the axis went up to it
  EXPECT_EQ(Count(LineChart({.title = "t", .x = {"x"}, .y = {"y"}, .y_refs = {{std::nan(""), "x"}}},
                            {{"s", {0, 1}, {0, 1}}}),
                  "stroke-dasharray"),
            0u);
  std::string why;
  EXPECT_TRUE(WellFormed(ScatterChart(spec, {{"p", {1}, {2}}}, {}, {}), &why)) << why;
}

TEST(Charts, MapDataOntoThePlotArea) {
  const svg::Frame f({.title = "t", .x = {"x"}, .y = {"y"}, .width = 500, .height = 300}, {0, 10, false},
                     {0, 100, false}, {});
  EXPECT_DOUBLE_EQ(f.X(0), f.left());
  EXPECT_DOUBLE_EQ(f.X(10), f.right());
  EXPECT_DOUBLE_EQ(f.Y(0), f.bottom());
  EXPECT_DOUBLE_EQ(f.Y(100), f.top());
  EXPECT_DOUBLE_EQ(f.X(5), (f.left() + f.right()) / 2);
}

TEST(TimelineRecorder, KeepsTheFirstSpansAndThinsCountersEvenly) {
  TimelineRecorder rec(/*max_spans=*/3, /*max_points=*/8);
  rec.OnProcessName({0, "gpu0", 0});
  for (int i = 0; i < 10; ++i)
    rec.OnSpan({0, 0, "k", "compute", TimePoint::FromNanos(i * 10), Duration::Nanos(5)});
  for (int i = 0; i < 100; ++i)
    rec.OnCounter({0, "kv", TimePoint::FromNanos(i * 1'000'000'000LL), double(i)});
  EXPECT_EQ(rec.spans_seen(), 10u);
  EXPECT_EQ(rec.Caption(48), "the first 3 of 10 spans");
  const std::vector<Series> kv = rec.Counters("kv", 1);
  ASSERT_EQ(kv.size(), 1u);
  EXPECT_EQ(kv[0].name, "gpu0");
  EXPECT_LT(kv[0].x.size(), 8u);
  ASSERT_GE(kv[0].x.size(), 2u);
  const double stride = kv[0].x[1] - kv[0].x[0];
  for (size_t i = 1; i < kv[0].x.size(); ++i) EXPECT_EQ(kv[0].x[i] - kv[0].x[i - 1], stride);
  EXPECT_EQ(kv[0].x[0], 0);
  EXPECT_EQ(kv[0].y, kv[0].x);  // value i at second i
}

TEST(HtmlPage, IsSelfContainedAndEscaped) {
  HtmlPage page("run <1>");
  page.AddSummary({{"a&b", "1 < 2"}});
  page.AddChart("chart", LineChart({.title = "t", .x = {"x"}, .y = {"y"}}, {{"s", {0, 1}, {0, 1}}}), "cap");
  page.AddText("table", "x < y\n");
  const std::string html = page.Render();
  std::string why;
  EXPECT_TRUE(WellFormed(html, &why)) << why;
  EXPECT_NE(html.find("<title>run &lt;1&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("<dt>a&amp;b</dt><dd>1 &lt; 2</dd>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://", html.find("</svg>")), std::string::npos);  // nothing fetched
  EXPECT_FALSE(page.WriteFile("/nonexistent-dir/x.html").ok());
}

}  // namespace
}  // namespace dlsim::report
