#include "svg_frame.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim::report::svg {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr double kCharWidth = 6.6;      // a 12 px sans-serif character, on average
constexpr size_t kLegendMaxChars = 40;  // longer names are shortened (the whole name is the hover title)
constexpr double kLegendRowHeight = 18;
constexpr int kMaxTicks = 12;

std::string AxisTitle(const Axis& a) { return a.unit.empty() ? a.label : a.label + " (" + a.unit + ")"; }

// Characters of UTF-8 `text` (continuation bytes not counted).
size_t Chars(const std::string& text) {
  return static_cast<size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The name as the legend shows it: at most kLegendMaxChars characters, the last an ellipsis when shortened.
std::string Shortened(const std::string& name) {
  if (Chars(name) <= kLegendMaxChars) return name;
  size_t chars = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if ((static_cast<unsigned char>(name[i]) & 0xC0) == 0x80) continue;
    if (++chars == kLegendMaxChars) return name.substr(0, i) + "\u2026";
  }
  return name;
}

double LegendWidth(const std::vector<std::string>& names) {
  if (names.empty()) return 0;
  size_t longest = 0;
  for (const std::string& n : names) longest = std::max(longest, Chars(Shortened(n)));
  return 40 + kCharWidth * static_cast<double>(longest);
}

}  // namespace

const char* Colour(size_t i) { return kPalette[i % (sizeof(kPalette) / sizeof(kPalette[0]))]; }

void Range::Add(double v) {
  if (!std::isfinite(v)) return;
  lo = empty ? v : std::min(lo, v);
  hi = empty ? v : std::max(hi, v);
  empty = false;
}

Range Range::Drawable(bool from_zero) const {
  Range r = empty ? Range{0, 1, false} : *this;
  if (from_zero) {
    r.lo = std::min(r.lo, 0.0);
    r.hi = std::max(r.hi, 0.0);
  }
  if (r.hi - r.lo <= 0) {
    const double pad = r.lo == 0 ? 1.0 : std::abs(r.lo) * 0.1;
    r.lo -= from_zero && r.lo >= 0 ? 0 : pad;
    r.hi += pad;
  }
  return r;
}

std::vector<double> NiceTicks(const Range& r, int target) {
  const double span = r.hi - r.lo;
  if (!(span > 0) || !std::isfinite(span)) return {r.lo};
  const double raw = span / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double v = std::ceil(r.lo / step - 1e-9) * step; v <= r.hi + step * 1e-9; v += step) {
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    if (ticks.size() > kMaxTicks) break;
  }
  return ticks;
}

std::string FormatTick(double v) { return fmt::format("{:.4g}", v); }

std::vector<double> DecadeTicks(const Range& r) {
  std::vector<double> ticks;
  for (double k = std::ceil(r.lo - 1e-9); k <= r.hi + 1e-9 && ticks.size() <= kMaxTicks; k += 1)
    ticks.push_back(k);
  return ticks.size() >= 2 ? ticks : NiceTicks(r, 4);  // less than a decade: ordinary ticks of the exponent
}

Range WithRefs(Range y, const ChartSpec& spec) {
  for (const RefLine& r : spec.y_refs) y.Add(r.y);
  return y;
}

Frame::Frame(const ChartSpec& spec, Range x, Range y, const std::vector<std::string>& legend,
             const std::vector<std::string>& categories)
    : spec_(spec),
      x_(x),
      y_(y),
      legend_(legend),
      categories_(categories),
      left_(std::max(40, spec.left_margin)),
      right_(spec.width - 16 - LegendWidth(legend)),
      top_(34),
      bottom_(spec.height - 48) {
  right_ = std::max(right_, left_ + 40);
  size_t longest = 0;
  for (const std::string& c : categories_) longest = std::max(longest, Chars(Shortened(c)));
  const double slot = categories_.empty() ? 0 : (right_ - left_) / static_cast<double>(categories_.size());
  upright_ = kCharWidth * static_cast<double>(longest) > 0.9 * slot && !categories_.empty();
  if (upright_) label_room_ = 14 + kCharWidth * static_cast<double>(longest);
  const double legend_bottom = top_ + 8 + kLegendRowHeight * static_cast<double>(legend.size());
  bottom_ = std::max({bottom_, top_ + 40, legend_bottom});
  spec_.height = static_cast<int>(std::ceil(bottom_ + label_room_ + 28));
  spec_.width = std::max(spec_.width, static_cast<int>(std::ceil(right_ + 16 + LegendWidth(legend))));
}

double Frame::X(double v) const { return left_ + (v - x_.lo) / (x_.hi - x_.lo) * (right_ - left_); }
double Frame::Y(double v) const { return bottom_ - (v - y_.lo) / (y_.hi - y_.lo) * (bottom_ - top_); }

std::string Frame::Open() const {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n<title>{2}</title>\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"{3}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{2}</text>\n",
      spec_.width, spec_.height, XmlEscape(spec_.title), left_);
}

std::string Frame::Axes(bool y_ticks) const {
  std::string s = "<g stroke=\"#dddddd\">\n";
  std::string text = "<g fill=\"#333333\">\n";
  for (double t : y_ticks ? NiceTicks(y_, 6) : std::vector<double>{}) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n", left_, Y(t), right_,
                     Y(t));
    text += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left_ - 6,
                        Y(t) + 4, FormatTick(t));
  }
  if (categories_.empty()) {
    for (double t : spec_.log_x ? DecadeTicks(x_) : NiceTicks(x_, 8)) {
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n", X(t), top_, X(t),
                       bottom_);
      text += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", X(t),
                          bottom_ + 16, FormatTick(spec_.log_x ? std::pow(10.0, t) : t));
    }
  }
  for (size_t i = 0; i < categories_.size(); ++i) {
    const double cx = X(static_cast<double>(i)), cy = bottom_ + 16;
    text += upright_
                ? fmt::format(
                      "<text x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"end\" transform=\"rotate(-90 {0:.1f} "
                      "{1:.1f})\"><title>{2}</title>{3}</text>\n",
                      cx + 4, cy - 8, XmlEscape(categories_[i]), XmlEscape(Shortened(categories_[i])))
                : fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", cx, cy,
                              XmlEscape(categories_[i]));
  }
  s += "</g>\n" + text + "</g>\n";
  s += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
      "stroke=\"#888888\"/>\n",
      left_, top_, right_ - left_, bottom_ - top_);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", (left_ + right_) / 2,
                   bottom_ + label_room_ + 16, XmlEscape(AxisTitle(spec_.x)));
  s += fmt::format("<text transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                   (top_ + bottom_) / 2, XmlEscape(AxisTitle(spec_.y)));
  return s;
}

std::string Frame::Legend() const {
  std::string s;
  for (size_t i = 0; i < legend_.size(); ++i) {
    const double y = top_ + 8 + kLegendRowHeight * static_cast<double>(i);
    s += fmt::format(
        "<g><title>{5}</title><rect x=\"{0:.1f}\" y=\"{1:.1f}\" width=\"12\" height=\"12\" fill=\"{2}\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\">{6}</text></g>\n",
        right_ + 14, y - 10, Colour(i), right_ + 32, y, XmlEscape(legend_[i]),
        XmlEscape(Shortened(legend_[i])));
  }
  return s;
}

std::string Frame::RefLines() const {
  std::string s;
  for (const RefLine& r : spec_.y_refs) {
    if (!std::isfinite(r.y)) continue;
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#000000\" "
        "stroke-width=\"1.4\" stroke-dasharray=\"6 4\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\" font-size=\"11\">{5}</text>\n",
        left_, right_, Y(r.y), right_ - 4, Y(r.y) - 4, XmlEscape(r.label));
  }
  return s;
}

std::string Frame::NoData() const {
  return fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#888888\">no data</text>\n",
      (left_ + right_) / 2, (top_ + bottom_) / 2);
}

}  // namespace dlsim::report::svg
