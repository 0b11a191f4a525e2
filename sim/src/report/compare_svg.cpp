// The comparison as an SVG plot (compare.hpp, write_comparison_svg): predicted and measured time
// against size, log-log, hand-written SVG (no plotting dependency), deterministic.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

#include "ringlab/sim/compare.hpp"

namespace ringlab::sim {
namespace {

constexpr double kWidth = 820, kHeight = 520;
constexpr double kLeft = 80, kRight = 170, kTop = 50, kBottom = 60;  ///< margins around the plot area
constexpr const char* kPredictedColour = "#1f77b4";
constexpr const char* kMeasuredColour = "#d62728";

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

std::string time_label(double us) {
  char text[32];
  if (us >= 1e6) std::snprintf(text, sizeof text, "%gs", us / 1e6);
  else if (us >= 1e3) std::snprintf(text, sizeof text, "%gms", us / 1e3);
  else std::snprintf(text, sizeof text, "%gus", us);
  return text;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

}  // namespace

void write_comparison_svg(std::ostream& out, const Comparison& c, const std::string& title) {
  double xmin = 1, xmax = 2, ymin = 1, ymax = 10;
  bool first = true;
  for (const ComparedRow& r : c.rows) {
    const double x = std::max(1.0, double(r.message.count()));
    for (double y : {r.predicted.microseconds(), r.measured.microseconds()}) {
      y = std::max(y, 1e-3);
      if (first) xmin = xmax = x, ymin = ymax = y, first = false;
      xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  }
  // Whole powers of two on x and of ten on y around the data.
  const double lx0 = std::floor(std::log2(xmin)), lx1 = std::max(lx0 + 1, std::ceil(std::log2(xmax)));
  const double ly0 = std::floor(std::log10(ymin)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(ymax)));
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  const auto px = [&](double bytes) { return kLeft + (std::log2(std::max(bytes, 1.0)) - lx0) / (lx1 - lx0) * pw; };
  const auto py = [&](double us) { return kTop + ph - (std::log10(std::max(us, 1e-3)) - ly0) / (ly1 - ly0) * ph; };

  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<title>" << escape(title) << "</title>\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"" << num(kLeft + pw / 2) << "\" y=\"28\" text-anchor=\"middle\" font-size=\"15\">" << escape(title)
      << "</text>\n";
  // Grid and ticks.
  const int xstep = lx1 - lx0 > 12 ? 4 : lx1 - lx0 > 6 ? 2 : 1;
  for (double e = lx0; e <= lx1; e += xstep) {
    const double x = px(std::pow(2.0, e));
    out << "<line x1=\"" << num(x) << "\" y1=\"" << num(kTop) << "\" x2=\"" << num(x) << "\" y2=\"" << num(kTop + ph)
        << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << num(x) << "\" y=\"" << num(kTop + ph + 18) << "\" text-anchor=\"middle\">"
        << size_label(std::pow(2.0, e)) << "</text>\n";
  }
  for (double e = ly0; e <= ly1; e += 1) {
    const double y = py(std::pow(10.0, e));
    out << "<line x1=\"" << num(kLeft) << "\" y1=\"" << num(y) << "\" x2=\"" << num(kLeft + pw) << "\" y2=\"" << num(y)
        << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << num(kLeft - 8) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
        << time_label(std::pow(10.0, e)) << "</text>\n";
  }
  out << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(kTop) << "\" width=\"" << num(pw) << "\" height=\"" << num(ph)
      << "\" fill=\"none\" stroke=\"black\"/>\n";
  out << "<text x=\"" << num(kLeft + pw / 2) << "\" y=\"" << num(kHeight - 18)
      << "\" text-anchor=\"middle\">message size (bytes, log scale)</text>\n";
  out << "<text transform=\"translate(20 " << num(kTop + ph / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << "time (log scale)</text>\n";

  // One predicted and one measured series per collective, points in size order.
  std::map<std::string, std::vector<const ComparedRow*>> series;
  for (const ComparedRow& r : c.rows) series[std::string(to_string(r.collective)) + " " + r.dtype].push_back(&r);
  double legend_y = kTop + 10;
  for (auto& [name, rows] : series) {
    std::stable_sort(rows.begin(), rows.end(), [](const ComparedRow* a, const ComparedRow* b) { return a->message < b->message; });
    for (const bool predicted : {true, false}) {
      const char* colour = predicted ? kPredictedColour : kMeasuredColour;
      out << "<polyline class=\"" << (predicted ? "predicted" : "measured") << "\" fill=\"none\" stroke=\"" << colour
          << "\" stroke-width=\"2\"" << (predicted ? " stroke-dasharray=\"6 3\"" : "") << " points=\"";
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const Duration t = predicted ? rows[i]->predicted : rows[i]->measured;
        out << (i ? " " : "") << num(px(double(rows[i]->message.count()))) << ',' << num(py(t.microseconds()));
      }
      out << "\"/>\n";
      for (const ComparedRow* r : rows) {
        const Duration t = predicted ? r->predicted : r->measured;
        out << "<circle cx=\"" << num(px(double(r->message.count()))) << "\" cy=\"" << num(py(t.microseconds()))
            << "\" r=\"3\" fill=\"" << colour << "\"><title>" << r->message.count() << " B: " << num(t.microseconds())
            << " us</title></circle>\n";
      }
      const double lx = kLeft + pw + 12;
      out << "<line x1=\"" << num(lx) << "\" y1=\"" << num(legend_y) << "\" x2=\"" << num(lx + 24) << "\" y2=\""
          << num(legend_y) << "\" stroke=\"" << colour << "\" stroke-width=\"2\""
          << (predicted ? " stroke-dasharray=\"6 3\"" : "") << "/>\n";
      out << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(legend_y + 4) << "\">" << escape(name)
          << (predicted ? " predicted" : " measured") << "</text>\n";
      legend_y += 18;
    }
  }
  char summary[128];
  std::snprintf(summary, sizeof summary, "median |error| %.1f %%, worst %.1f %%", c.median_abs_error * 100,
                c.worst_abs_error * 100);
  out << "<text x=\"" << num(kLeft + pw + 12) << "\" y=\"" << num(legend_y + 10) << "\" font-size=\"11\">" << summary
      << "</text>\n";
  out << "</svg>\n";
}

}  // namespace ringlab::sim
