// The comparison as an SVG plot (compare.hpp, write_comparison_svg): predicted and measured time
// against size per collective and type, through the shared plot writer (plot.hpp).
#include <cstdio>
#include <map>

#include "ringlab/sim/compare.hpp"
#include "ringlab/sim/plot.hpp"

namespace ringlab::sim {

void write_comparison_svg(std::ostream& out, const Comparison& c, const std::string& title) {
  std::map<std::string, std::pair<PlotSeries, PlotSeries>> by_run;  // "allreduce float" -> (predicted, measured)
  for (const ComparedRow& r : c.rows) {
    const std::string name = std::string(to_string(r.collective)) + " " + r.dtype;
    auto& [predicted, measured] = by_run[name];
    predicted.name = name + " predicted";
    predicted.dashed = true;
    predicted.css_class = "predicted";
    measured.name = name + " measured";
    measured.css_class = "measured";
    predicted.points.push_back({double(r.message.count()), r.predicted.microseconds()});
    measured.points.push_back({double(r.message.count()), r.measured.microseconds()});
  }
  std::vector<PlotSeries> series;
  for (auto& entry : by_run) {
    series.push_back(std::move(entry.second.first));
    series.push_back(std::move(entry.second.second));
  }
  char summary[128];
  std::snprintf(summary, sizeof summary, "median |error| %.1f %%, worst %.1f %%", c.median_abs_error * 100,
                c.worst_abs_error * 100);
  write_svg_plot(out, title, PlotQuantity::TimeUs, series, summary);
}

}  // namespace ringlab::sim
