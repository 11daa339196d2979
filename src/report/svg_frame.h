// Private to src/report: the frame every SVG chart shares — the data-to-pixel mapping, nice
// ticks, axes with grid lines, the title and the legend — and number formatting for labels.
#ifndef DLSIM_SRC_REPORT_SVG_FRAME_H_
#define DLSIM_SRC_REPORT_SVG_FRAME_H_

#include <string>
#include <vector>

#include "dlsim/report/svg_chart.h"

namespace dlsim::report::svg {

// The i-th colour of the fixed palette (wraps around).
const char* Colour(size_t i);

// A closed interval of data values; empty until the first finite value is added.
struct Range {
  double lo = 0, hi = 0;
  bool empty = true;
  void Add(double v);
  // Widens a zero-width range so it can be drawn; `from_zero` includes 0 (bars, CDFs).
  Range Drawable(bool from_zero) const;
};

// `y` widened to include the finite reference lines of `spec`.
Range WithRefs(Range y, const ChartSpec& spec);

// Tick values over `r`: about `target` of them at 1, 2 or 5 x 10^k, covering the range.
std::vector<double> NiceTicks(const Range& r, int target);

// On a log10 axis (`r` holds exponents): the integers in `r` (1, 10, 100, ... once labelled), or NiceTicks of
// the exponents when `r` spans less than two of them.
std::vector<double> DecadeTicks(const Range& r);

// "1.5", "12", "3.2e+06": up to four significant digits, no trailing zeros.
std::string FormatTick(double v);

// The plot area of a chart and the mapping from data to pixels.
class Frame {
 public:
  // Margins leave room for the title, the axis labels and a legend column as wide as the longest of
  // `legend` (none when empty); the chart is made taller when the legend's entries need it. `categories`
  // label x positions 0..n-1 instead of numeric ticks; when they are too wide for their slots they are
  // drawn upright (reading upwards) and the chart grows taller to hold them.
  Frame(const ChartSpec& spec, Range x, Range y, const std::vector<std::string>& legend,
        const std::vector<std::string>& categories = {});
  double X(double v) const;
  double Y(double v) const;
  double left() const { return left_; }
  double right() const { return right_; }
  double top() const { return top_; }
  double bottom() const { return bottom_; }

  // "<svg ...>" with the title; the caller appends the body and then Close().
  std::string Open() const;
  // Grid, ticks and axis labels for both axes (x: numeric ticks, or the categories). `y_ticks` false: no
  // y grid or tick labels (lanes).
  std::string Axes(bool y_ticks = true) const;
  // A legend entry per name given to the constructor, in the right margin.
  std::string Legend() const;
  // The spec's reference lines (ChartSpec::y_refs), dashed, labelled at their right end.
  std::string RefLines() const;
  // "No data" in the middle of the plot area.
  std::string NoData() const;
  static std::string Close() { return "</svg>\n"; }

 private:
  ChartSpec spec_;
  Range x_, y_;
  std::vector<std::string> legend_, categories_;
  bool upright_ = false;    // category labels drawn upright
  double label_room_ = 20;  // pixels under the plot for the x tick labels
  double left_, right_, top_, bottom_;
};

}  // namespace dlsim::report::svg

#endif  // DLSIM_SRC_REPORT_SVG_FRAME_H_
