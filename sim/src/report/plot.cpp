// SVG plots (plot.hpp).
#include "ringlab/sim/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

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

}  // namespace

void write_svg_plot(std::ostream& out, const std::string& title, PlotQuantity quantity,
                    std::span<const PlotSeries> series, const std::string& footnote) {
  const bool log_y = quantity == PlotQuantity::TimeUs;
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool first = true;
  for (const PlotSeries& s : series)
    for (const PlotPoint& p : s.points) {
      const double x = std::max(p.bytes, 1.0), y = log_y ? std::max(p.value, 1e-3) : std::max(p.value, 0.0);
      if (first) xmin = xmax = x, ymin = ymax = y, first = false;
      xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  if (first) xmin = 1, xmax = 2, ymin = 1, ymax = 10;
  // Whole powers of two on x; powers of ten (log) or a nice step from 0 (linear) on y.
  const double lx0 = std::floor(std::log2(xmin)), lx1 = std::max(lx0 + 1, std::ceil(std::log2(xmax)));
  const double y0 = log_y ? std::floor(std::log10(ymin)) : 0.0;
  const double step = log_y ? 1.0 : nice_step(std::max(ymax, 1e-9));
  const double y1 = log_y ? std::max(y0 + 1, std::ceil(std::log10(ymax))) : std::ceil(std::max(ymax, 1e-9) / step) * step;
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  const auto px = [&](double bytes) { return kLeft + (std::log2(std::max(bytes, 1.0)) - lx0) / (lx1 - lx0) * pw; };
  const auto py = [&](double v) {
    const double t = log_y ? (std::log10(std::max(v, 1e-3)) - y0) / (y1 - y0) : v / y1;
    return kTop + ph - t * ph;
  };

  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<title>" << escape(title) << "</title>\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"" << num(kLeft + pw / 2) << "\" y=\"28\" text-anchor=\"middle\" font-size=\"15\">" << escape(title)
      << "</text>\n";
  const int xstep = lx1 - lx0 > 12 ? 4 : lx1 - lx0 > 6 ? 2 : 1;
  for (double e = lx0; e <= lx1; e += xstep) {
    const double x = px(std::pow(2.0, e));
    out << "<line x1=\"" << num(x) << "\" y1=\"" << num(kTop) << "\" x2=\"" << num(x) << "\" y2=\"" << num(kTop + ph)
        << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << num(x) << "\" y=\"" << num(kTop + ph + 18) << "\" text-anchor=\"middle\">"
        << size_label(std::pow(2.0, e)) << "</text>\n";
  }
  for (double v = y0; v <= y1 + 1e-9; v += step) {
    const double value = log_y ? std::pow(10.0, v) : v;
    const double y = py(value);
    out << "<line x1=\"" << num(kLeft) << "\" y1=\"" << num(y) << "\" x2=\"" << num(kLeft + pw) << "\" y2=\"" << num(y)
        << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << num(kLeft - 8) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
        << value_label(quantity, value) << "</text>\n";
  }
  out << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(kTop) << "\" width=\"" << num(pw) << "\" height=\"" << num(ph)
      << "\" fill=\"none\" stroke=\"black\"/>\n";
  out << "<text x=\"" << num(kLeft + pw / 2) << "\" y=\"" << num(kHeight - 18)
      << "\" text-anchor=\"middle\">message size (bytes, log scale)</text>\n";
  out << "<text transform=\"translate(20 " << num(kTop + ph / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << (log_y ? "time (log scale)" : "bus bandwidth (GB/s)") << "</text>\n";

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
          << "\"><title>" << std::llround(p.bytes) << " B: " << value_label(quantity, p.value)
          << (log_y ? "" : " GB/s") << "</title></circle>\n";
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
