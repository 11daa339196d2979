// Charts as self-contained SVG text (no scripts, no external fonts or styles): line and step
// charts (time series, CDFs), scatter plots with marked points and a front, stacked bars and
// timelines of spans in lanes. The HTML report (html_page.h) embeds them; every function
// returns one <svg> element that is well-formed XML.
//
//   report::ChartSpec spec{.title = "TTFT", .x = {"TTFT", "s"}, .y = {"fraction of requests", ""}};
//   std::string svg = report::LineChart(spec, {report::Cdf("vllm", ttft_samples)});
//
// Axes get "nice" ticks (1, 2, 5 x 10^k) over the data's range, labelled with their unit;
// series colours come from one fixed palette in the order series (or categories) are given,
// so the same data gives the same bytes. The legend column is as wide as its longest name (names
// past 40 characters are shortened, the whole name kept as the entry's hover title) and the chart
// grows taller when the legend has more entries than fit beside the plot. Non-finite values are
// dropped, never drawn. Charts with no finite data say so in the plot area instead of drawing an
// empty frame.
#ifndef DLSIM_REPORT_SVG_CHART_H_
#define DLSIM_REPORT_SVG_CHART_H_

#include <cstddef>
#include <string>
#include <vector>

namespace dlsim::report {

struct Axis {
  std::string label;
  std::string unit{};  // shown as "label (unit)" when not empty
};

// A horizontal reference line across the plot (a capacity, an SLO, a target), dashed, labelled at its right
// end; the y axis always reaches it.
struct RefLine {
  double y = 0;
  std::string label;
};

struct ChartSpec {
  std::string title;
  Axis x, y;
  int width = 760, height = 340;  // pixels, including margins and legend
  int left_margin = 78;           // room for the y tick labels (timelines widen it for lane names)
  // LineChart only: x on a log10 scale, ticks at powers of ten (data spanning decades, e.g. a JCT CDF over
  // minutes to months); points with x <= 0 cannot be drawn there and are dropped.
  bool log_x = false;
  // LineChart, ScatterChart and StackedBarChart: reference lines (non-finite values are dropped).
  std::vector<RefLine> y_refs{};
};

// A named sequence of points. `step`: drawn as a staircase (the value holds until the next x),
// as for a CDF or a counter sampled at changes.
struct Series {
  std::string name;
  std::vector<double> x{}, y{};
  bool step = false;
};

// A point to call out (the chosen layout, the baseline), drawn as a ring with its label.
struct Mark {
  double x = 0, y = 0;
  std::string label;
};

// Lines (or staircases) through each series' points, in x order as given.
std::string LineChart(const ChartSpec& spec, const std::vector<Series>& series);

// `points` as dots (one colour per series), `lines` as polylines over them (a Pareto front),
// and `marks` as labelled rings.
std::string ScatterChart(const ChartSpec& spec, const std::vector<Series>& points,
                         const std::vector<Series>& lines, const std::vector<Mark>& marks);

// One bar per category, stacked from `stacks` (stack i's value for category j is
// stacks[i].y[j]; negative values count as 0). x labels are the categories.
std::string StackedBarChart(const ChartSpec& spec, const std::vector<std::string>& categories,
                            const std::vector<Series>& stacks);

// A span [start, end) in lane `lane`, coloured by `category`; `label` is its hover title.
struct TimelineSpan {
  int lane = 0;
  double start = 0, end = 0;
  std::string category;
  std::string label{};
};

// Lanes top to bottom (their names on the left), spans as bars; the legend lists the
// categories in order of first appearance. Spans in lanes outside `lanes` are dropped.
std::string TimelineChart(const ChartSpec& spec, const std::vector<std::string>& lanes,
                          const std::vector<TimelineSpan>& spans);

// The empirical CDF of `samples` (non-finite dropped) as a step series: x sorted, y = i / n.
// At most `max_points` points: evenly spaced quantiles when there are more samples.
Series Cdf(std::string name, std::vector<double> samples, size_t max_points = 512);

// `s` thinned to at most `max_points` points (every k-th, the last one kept), for long series.
Series Thin(const Series& s, size_t max_points);

// Text escaped for XML/HTML content and attributes (& < > " ').
std::string XmlEscape(const std::string& text);

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_SVG_CHART_H_
