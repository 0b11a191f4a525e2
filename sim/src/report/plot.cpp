// SVG plots (plot.hpp).
#include "ringlab/sim/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>
#include <vector>

namespace ringlab::sim {
namespace {

constexpr double kWidth = 820, kHeight = 520;
constexpr double kLeft = 80, kRight = 190, kTop = 50, kBottom = 60;  ///< margins around the plot area
/// Colours in series order (Tableau 10, distinguishable in print and by most colour-blind readers).
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

/// "1K", "4M", "1G": sizes at powers of two, as nccl-tests' -b/-e take them.
std::string size_label(double bytes) {
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%g%s", bytes, units[u]);
  return text;
}

std::string value_label(PlotQuantity q, double v) {
  char text[32];
  if (q == PlotQuantity::BusBandwidth) std::snprintf(text, sizeof text, "%g", v);
  else if (v >= 1e6) std::snprintf(text, sizeof text, "%gs", v / 1e6);
  else if (v >= 1e3) std::snprintf(text, sizeof text, "%gms", v / 1e3);
  else std::snprintf(text, sizeof text, "%gus", v);
  return text;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

/// A "nice" step for a linear axis up to `max`: 1, 2 or 5 times a power of ten, about 5 ticks.
double nice_step(double max) {
  const double raw = max / 5, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

/// One axis: its range in drawing units (log2 or log10 of the value, or the value itself), the
/// transform into them, and where its ticks go with their labels.
struct AxisMap {
  PlotScale scale;
  double lo = 0, hi = 1;
  std::vector<std::pair<double, std::string>> ticks;  ///< (value, label)

  /// Values a log axis cannot show are drawn at its floor (1 byte, 1 ns, 1e-12).
  double clamp(double v) const {
    switch (scale) {
      case PlotScale::Bytes: return std::max(v, 1.0);
      case PlotScale::TimeUs: return std::max(v, 1e-3);
      case PlotScale::Log2:
      case PlotScale::Log10: return std::max(v, kLogFloor);
      case PlotScale::Linear: return v;
    }
    return v;
  }
  /// The value in drawing units.
  double transform(double v) const {
    const bool log2_scale = scale == PlotScale::Bytes || scale == PlotScale::Log2;
    if (scale == PlotScale::Linear) return v;
    return log2_scale ? std::log2(clamp(v)) : std::log10(clamp(v));
  }
  double fraction(double v) const { return (transform(v) - lo) / (hi - lo); }

  static constexpr double kLogFloor = 1e-12;
};

std::string general_label(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v == 0 ? 0.0 : v);  // no "-0"
  return text;
}

/// The axis' range from the smallest and largest value shown, and its ticks.
AxisMap make_axis(const PlotAxis& axis, double vmin, double vmax) {
  AxisMap m{axis.scale};
  const bool log2_scale = axis.scale == PlotScale::Bytes || axis.scale == PlotScale::Log2;
  if (axis.scale != PlotScale::Linear) {
    // Whole powers of two or ten.
    m.lo = std::floor(m.transform(vmin));
    m.hi = std::max(m.lo + 1, std::ceil(m.transform(vmax)));
    const double span = m.hi - m.lo;
    const int stride = log2_scale ? (span > 12 ? 4 : span > 6 ? 2 : 1) : (span > 8 ? 2 : 1);
    // Log10 over at most two decades also marks 2 and 5 times each power of ten.
    const bool fine = axis.scale == PlotScale::Log10 && span <= 2;
    for (double e = m.lo; e <= m.hi; e += stride) {
      const double value = std::pow(log2_scale ? 2.0 : 10.0, e);
      std::string label = axis.scale == PlotScale::Bytes    ? size_label(value)
                          : axis.scale == PlotScale::TimeUs ? value_label(PlotQuantity::TimeUs, value)
                                                            : general_label(value);
      m.ticks.emplace_back(value, std::move(label));
      if (fine && e < m.hi)
        for (double k : {2.0, 5.0}) m.ticks.emplace_back(k * value, general_label(k * value));
    }
    return m;
  }
  // A nice step from 0 (from_zero) or from the smallest value; a single value gets a span of 2 around it.
  double lo = axis.from_zero ? std::min(vmin, 0.0) : vmin;
  double hi = vmax;
  if (!axis.from_zero && hi - lo <= 0) lo -= 1, hi += 1;
  const double step = nice_step(std::max(hi - lo, 1e-9));
  m.lo = std::floor(lo / step) * step;
  m.hi = std::ceil(std::max(hi, m.lo + 1e-9) / step) * step;
  for (double v = m.lo; v <= m.hi + 1e-9; v += step) m.ticks.emplace_back(v, general_label(v));
  return m;
}

/// A point's coordinate as its tooltip says it.
std::string tooltip_value(const PlotAxis& axis, double v) {
  if (axis.scale == PlotScale::Bytes) return std::to_string(std::llround(v)) + " B";
  if (axis.scale == PlotScale::TimeUs) return value_label(PlotQuantity::TimeUs, v);
  return general_label(v) + (axis.unit.empty() ? "" : " " + axis.unit);
}

}  // namespace

void write_svg_plot(std::ostream& out, const std::string& title, PlotQuantity quantity,
                    std::span<const PlotSeries> series, const std::string& footnote) {
  const PlotAxis x{"message size (bytes, log scale)", PlotScale::Bytes, false, "B"};
  const PlotAxis y = quantity == PlotQuantity::TimeUs ? PlotAxis{"time (log scale)", PlotScale::TimeUs, false, ""}
                                                      : PlotAxis{"bus bandwidth (GB/s)", PlotScale::Linear, true, "GB/s"};
  write_svg_plot(out, title, x, y, series, footnote);
}

void write_svg_plot(std::ostream& out, const std::string& title, const PlotAxis& x_axis, const PlotAxis& y_axis,
                    std::span<const PlotSeries> series, const std::string& footnote) {
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool first = true;
  const AxisMap xclamp{x_axis.scale}, yclamp{y_axis.scale};
  for (const PlotSeries& s : series)
    for (const PlotPoint& p : s.points) {
      const double x = xclamp.clamp(p.bytes), y = yclamp.clamp(p.value);
      if (first) xmin = xmax = x, ymin = ymax = y, first = false;
      xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  if (first) xmin = 1, xmax = 2, ymin = 1, ymax = 10;
  const AxisMap xm = make_axis(x_axis, xmin, xmax), ym = make_axis(y_axis, ymin, ymax);
  // A long legend makes the picture taller; the plot area keeps its size.
  const double legend_bottom = kTop + 10 + 18.0 * double(series.size()) + (footnote.empty() ? 0 : 20) + 10;
  const double height = std::max(kHeight, legend_bottom);
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  // Long legend entries or footnote make it wider (about 7 px per character at 12 px, 6.4 at 11 px).
  double width = kWidth;
  for (const PlotSeries& s : series)
    width = std::max(width, std::ceil(kLeft + pw + 12 + 30 + 7.0 * double(s.name.size()) + 10));
  width = std::max(width, std::ceil(kLeft + pw + 12 + 6.4 * double(footnote.size()) + 10));
  const auto px = [&](double v) { return kLeft + xm.fraction(v) * pw; };
  const auto py = [&](double v) { return kTop + ph - ym.fraction(v) * ph; };

  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<title>" << escape(title) << "</title>\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"" << num(kLeft + pw / 2) << "\" y=\"28\" text-anchor=\"middle\" font-size=\"15\">" << escape(title)
      << "</text>\n";
  for (const auto& [value, label] : xm.ticks) {
    const double x = px(value);
    out << "<line x1=\"" << num(x) << "\" y1=\"" << num(kTop) << "\" x2=\"" << num(x) << "\" y2=\"" << num(kTop + ph)
        << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << num(x) << "\" y=\"" << num(kTop + ph + 18) << "\" text-anchor=\"middle\">" << escape(label)
        << "</text>\n";
  }
  for (const auto& [value, label] : ym.ticks) {
    const double y = py(value);
    out << "<line x1=\"" << num(kLeft) << "\" y1=\"" << num(y) << "\" x2=\"" << num(kLeft + pw) << "\" y2=\"" << num(y)
        << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << num(kLeft - 8) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">" << escape(label)
        << "</text>\n";
  }
  out << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(kTop) << "\" width=\"" << num(pw) << "\" height=\"" << num(ph)
      << "\" fill=\"none\" stroke=\"black\"/>\n";
  out << "<text x=\"" << num(kLeft + pw / 2) << "\" y=\"" << num(kHeight - 18) << "\" text-anchor=\"middle\">"
      << escape(x_axis.label) << "</text>\n";
  out << "<text transform=\"translate(20 " << num(kTop + ph / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << escape(y_axis.label) << "</text>\n";

  double legend_y = kTop + 10;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const PlotSeries& s = series[i];
    const char* colour = kColours[i % std::size(kColours)];
    std::vector<PlotPoint> points = s.points;
    std::stable_sort(points.begin(), points.end(), [](const PlotPoint& a, const PlotPoint& b) { return a.bytes < b.bytes; });
    const std::string dash = s.dashed ? " stroke-dasharray=\"6 3\"" : "";
    out << "<polyline" << (s.css_class.empty() ? "" : " class=\"" + escape(s.css_class) + "\"") << " fill=\"none\" stroke=\""
        << colour << "\" stroke-width=\"2\"" << dash << " points=\"";
    for (std::size_t k = 0; k < points.size(); ++k)
      out << (k ? " " : "") << num(px(points[k].bytes)) << ',' << num(py(points[k].value));
    out << "\"/>\n";
    for (const PlotPoint& p : points)
      out << "<circle cx=\"" << num(px(p.bytes)) << "\" cy=\"" << num(py(p.value)) << "\" r=\"3\" fill=\"" << colour
          << "\"><title>" << escape(tooltip_value(x_axis, p.bytes)) << ": " << escape(tooltip_value(y_axis, p.value))
          << "</title></circle>\n";
    const double lx = kLeft + pw + 12;
    out << "<line x1=\"" << num(lx) << "\" y1=\"" << num(legend_y) << "\" x2=\"" << num(lx + 24) << "\" y2=\""
        << num(legend_y) << "\" stroke=\"" << colour << "\" stroke-width=\"2\"" << dash << "/>\n";
    out << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(legend_y + 4) << "\">" << escape(s.name) << "</text>\n";
    legend_y += 18;
  }
  if (!footnote.empty())
    out << "<text x=\"" << num(kLeft + pw + 12) << "\" y=\"" << num(legend_y + 10) << "\" font-size=\"11\">"
        << escape(footnote) << "</text>\n";
  out << "</svg>\n";
}

}  // namespace ringlab::sim
