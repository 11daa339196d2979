#include "dlsim/report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "svg_frame.h"

namespace dlsim::report {
namespace {

using svg::Colour;
using svg::Frame;
using svg::Range;

bool Finite(double x, double y) { return std::isfinite(x) && std::isfinite(y); }

void AddAll(const std::vector<Series>& series, Range* x, Range* y) {
  for (const Series& s : series) {
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!Finite(s.x[i], s.y[i])) continue;
      x->Add(s.x[i]);
      y->Add(s.y[i]);
    }
  }
}

std::vector<std::string> Names(const std::vector<Series>& series) {
  std::vector<std::string> names;
  for (const Series& s : series) names.push_back(s.name);
  return names;
}

// The polyline of one series (a staircase when s.step).
std::string Polyline(const Frame& f, const Series& s, const char* colour) {
  std::string points;
  bool first = true;
  double last_y = 0;
  for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
    if (!Finite(s.x[i], s.y[i])) continue;
    if (s.step && !first) points += fmt::format("{:.1f},{:.1f} ", f.X(s.x[i]), last_y);
    last_y = f.Y(s.y[i]);
    points += fmt::format("{:.1f},{:.1f} ", f.X(s.x[i]), last_y);
    first = false;
  }
  if (points.empty()) return {};
  points.pop_back();
  return fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\" points=\"{}\"/>\n", colour,
                     points);
}

std::string Dots(const Frame& f, const Series& s, const char* colour) {
  std::string out = fmt::format("<g fill=\"{}\" fill-opacity=\"0.65\">\n", colour);
  for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
    if (!Finite(s.x[i], s.y[i])) continue;
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"/>\n", f.X(s.x[i]), f.Y(s.y[i]));
  }
  return out + "</g>\n";
}

std::string Marks(const Frame& f, const std::vector<Mark>& marks) {
  std::string out;
  for (const Mark& m : marks) {
    if (!Finite(m.x, m.y)) continue;
    out += fmt::format(
        "<circle cx=\"{0:.1f}\" cy=\"{1:.1f}\" r=\"7\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2\"/>"
        "<text x=\"{2:.1f}\" y=\"{3:.1f}\" font-weight=\"bold\">{4}</text>\n",
        f.X(m.x), f.Y(m.y), f.X(m.x) + 10, f.Y(m.y) - 8, XmlEscape(m.label));
  }
  return out;
}

// `r` widened by 3% of its span on each side, so dots at the extremes are drawn whole.
Range Padded(Range r) {
  const double pad = 0.03 * (r.hi - r.lo);
  return {r.lo - pad, r.hi + pad, r.empty};
}

// `series` with x replaced by log10(x), points at x <= 0 dropped (a log axis cannot draw them).
std::vector<Series> LogX(const std::vector<Series>& series) {
  std::vector<Series> out;
  for (const Series& s : series) {
    Series t{s.name, {}, {}, s.step};
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!(s.x[i] > 0) || !Finite(s.x[i], s.y[i])) continue;
      t.x.push_back(std::log10(s.x[i]));
      t.y.push_back(s.y[i]);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

std::string LineChart(const ChartSpec& spec, const std::vector<Series>& given) {
  const std::vector<Series> series = spec.log_x ? LogX(given) : given;
  Range x, y;
  AddAll(series, &x, &y);
  const bool any = !x.empty;
  const Frame f(spec, x.Drawable(false), svg::WithRefs(y, spec).Drawable(true), Names(series));
  std::string out = f.Open() + f.Axes();
  if (!any) return out + f.NoData() + Frame::Close();
  for (size_t i = 0; i < series.size(); ++i) out += Polyline(f, series[i], Colour(i));
  return out + f.RefLines() + f.Legend() + Frame::Close();
}

std::string ScatterChart(const ChartSpec& spec, const std::vector<Series>& points,
                         const std::vector<Series>& lines, const std::vector<Mark>& marks) {
  Range x, y;
  AddAll(points, &x, &y);
  AddAll(lines, &x, &y);
  for (const Mark& m : marks) {
    if (Finite(m.x, m.y)) x.Add(m.x), y.Add(m.y);
  }
  const bool any = !x.empty;
  std::vector<std::string> names = Names(points);
  for (const Series& l : lines) names.push_back(l.name);
  const Frame f(spec, Padded(x.Drawable(false)), Padded(svg::WithRefs(y, spec).Drawable(false)), names);
  std::string out = f.Open() + f.Axes();
  if (!any) return out + f.NoData() + Frame::Close();
  for (size_t i = 0; i < points.size(); ++i) out += Dots(f, points[i], Colour(i));
  for (size_t i = 0; i < lines.size(); ++i) out += Polyline(f, lines[i], Colour(points.size() + i));
  return out + Marks(f, marks) + f.RefLines() + f.Legend() + Frame::Close();
}

std::string StackedBarChart(const ChartSpec& spec, const std::vector<std::string>& categories,
                            const std::vector<Series>& stacks) {
  const size_t n = categories.size();
  std::vector<double> totals(n, 0.0);
  for (const Series& s : stacks) {
    for (size_t j = 0; j < std::min(n, s.y.size()); ++j)
      totals[j] += std::isfinite(s.y[j]) ? std::max(0.0, s.y[j]) : 0;
  }
  Range x{-0.5, n == 0 ? 0.5 : static_cast<double>(n) - 0.5, false}, y;
  for (double t : totals) y.Add(t);
  const Frame f(spec, x, svg::WithRefs(y, spec).Drawable(true), Names(stacks), categories);
  std::string out = f.Open() + f.Axes();
  if (n == 0) return out + f.NoData() + Frame::Close();
  const double width = std::min(60.0, 0.7 * (f.X(1) - f.X(0)));
  std::vector<double> base(n, 0.0);
  for (size_t i = 0; i < stacks.size(); ++i) {
    out += fmt::format("<g fill=\"{}\">\n", Colour(i));
    for (size_t j = 0; j < std::min(n, stacks[i].y.size()); ++j) {
      const double v = std::isfinite(stacks[i].y[j]) ? std::max(0.0, stacks[i].y[j]) : 0;
      const double top = f.Y(base[j] + v), bottom = f.Y(base[j]);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"><title>{}: {}</title></rect>\n",
          f.X(static_cast<double>(j)) - width / 2, top, width, bottom - top, XmlEscape(stacks[i].name),
          svg::FormatTick(v));
      base[j] += v;
    }
    out += "</g>\n";
  }
  return out + f.RefLines() + f.Legend() + Frame::Close();
}

std::string TimelineChart(const ChartSpec& spec, const std::vector<std::string>& lanes,
                          const std::vector<TimelineSpan>& spans) {
  ChartSpec s = spec;
  s.height = std::max(spec.height, 90 + 18 * static_cast<int>(lanes.size()));
  size_t longest = 0;
  for (const std::string& l : lanes) longest = std::max(longest, l.size());
  s.left_margin = std::max(spec.left_margin, static_cast<int>(std::min<size_t>(longest, 40) * 6 + 12));
  s.width = std::max(spec.width, s.left_margin + 520);
  Range x;
  std::vector<std::string> categories;
  for (const TimelineSpan& sp : spans) {
    if (sp.lane < 0 || sp.lane >= static_cast<int>(lanes.size()) || !Finite(sp.start, sp.end)) continue;
    x.Add(sp.start), x.Add(sp.end);
    if (std::find(categories.begin(), categories.end(), sp.category) == categories.end())
      categories.push_back(sp.category);
  }
  const Range y{0, std::max<double>(1, lanes.size()), false};
  const Frame f(s, x.Drawable(false), y, categories);
  std::string out = f.Open() + f.Axes(false);
  if (x.empty) return out + f.NoData() + Frame::Close();
  const double lane_h = f.Y(0) - f.Y(1);
  for (size_t l = 0; l < lanes.size(); ++l) {
    out +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"10\">{}</text>\n",
                    f.left() - 4, f.Y(static_cast<double>(lanes.size() - l) - 0.5) + 3, XmlEscape(lanes[l]));
  }
  for (const TimelineSpan& sp : spans) {
    if (sp.lane < 0 || sp.lane >= static_cast<int>(lanes.size()) || !Finite(sp.start, sp.end)) continue;
    const size_t c = std::find(categories.begin(), categories.end(), sp.category) - categories.begin();
    const double top = f.Y(static_cast<double>(lanes.size() - sp.lane)) + 0.15 * lane_h;
    out += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
        "fill=\"{}\"><title>{}</title></rect>\n",
        f.X(sp.start), top, std::max(0.3, f.X(sp.end) - f.X(sp.start)), 0.7 * lane_h, Colour(c),
        XmlEscape(sp.label.empty() ? sp.category : sp.label));
  }
  return out + f.Legend() + Frame::Close();
}

Series Cdf(std::string name, std::vector<double> samples, size_t max_points) {
  samples.erase(std::remove_if(samples.begin(), samples.end(), [](double v) { return !std::isfinite(v); }),
                samples.end());
  std::sort(samples.begin(), samples.end());
  Series s{.name = std::move(name), .step = true};
  const size_t n = samples.size();
  if (n == 0) return s;
  const size_t points = std::max<size_t>(2, std::min(n, max_points));
  for (size_t k = 0; k < points; ++k) {
    const size_t i = points == n ? k : std::min(n - 1, (k * (n - 1)) / (points - 1));
    s.x.push_back(samples[i]);
    s.y.push_back(static_cast<double>(i + 1) / static_cast<double>(n));
  }
  return s;
}

Series Thin(const Series& s, size_t max_points) {
  const size_t n = std::min(s.x.size(), s.y.size());
  if (n <= max_points || max_points < 2) return s;
  Series out{.name = s.name, .step = s.step};
  const size_t stride = (n + max_points - 2) / (max_points - 1);
  for (size_t i = 0; i < n; i += stride) out.x.push_back(s.x[i]), out.y.push_back(s.y[i]);
  if (out.x.back() != s.x[n - 1]) out.x.push_back(s.x[n - 1]), out.y.push_back(s.y[n - 1]);
  return out;
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n' || c == '\r') out += c;
    }
  }
  return out;
}

}  // namespace dlsim::report
