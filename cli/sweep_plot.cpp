// `sweep --plot`: choosing the axes and series of a sweep's picture (sweep_plot.hpp).
#include "sweep_plot.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::cli {
namespace {

using Json = nlohmann::json;

/// A factor of this much between the smallest and largest value puts the x axis on a log scale.
constexpr double kLogSpan = 8;
/// Series beyond the palette's 10 colours are dashed.
constexpr std::size_t kColours = 10;

struct NumericValues {
  std::vector<double> values;
  std::string unit;   ///< "" for plain numbers, "bytes", "Gb/s", "us"
  bool bytes = false;
};

/// Every value read with `read`, or nothing when one of them is not a string it accepts.
std::optional<std::vector<double>> read_all(const std::vector<Json>& values,
                                            const std::function<double(const std::string&)>& read) {
  std::vector<double> out;
  for (const Json& v : values) {
    if (!v.is_string()) return std::nullopt;
    try {
      out.push_back(read(v.get<std::string>()));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return out;
}

/// The axis' values as numbers: JSON numbers, or unit strings that all read as sizes, rates or durations.
std::optional<NumericValues> numeric_values(const SweepAxis& axis) {
  if (std::all_of(axis.values.begin(), axis.values.end(), [](const Json& v) { return v.is_number(); })) {
    NumericValues n;
    for (const Json& v : axis.values) n.values.push_back(v.get<double>());
    return n;
  }
  if (auto v = read_all(axis.values, [](const std::string& s) { return double(parse_bytes(s).count()); }))
    return NumericValues{*v, "bytes", true};
  if (auto v = read_all(axis.values, [](const std::string& s) { return parse_bandwidth(s).gbps(); }))
    return NumericValues{*v, "Gb/s", false};
  if (auto v = read_all(axis.values, [](const std::string& s) { return parse_duration(s).microseconds(); }))
    return NumericValues{*v, "us", false};
  return std::nullopt;
}

bool power_of_two(double v) {
  int exponent = 0;
  return v > 0 && std::frexp(v, &exponent) == 0.5;
}

std::string ends_with_unit(const std::string& name) {
  const auto ends = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends("_GBps")) return "GB/s";
  if (ends("_us")) return "us";
  if (ends("_s")) return "s";
  if (ends("_B")) return "bytes";
  return "";
}

std::string last_token(const Json::json_pointer& p) { return p.empty() ? std::string() : p.back(); }

std::string value_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

SweepPlotLayout sweep_plot_layout(const SweepSpec& spec) {
  // The first numeric axis with two or more distinct values, else the first numeric axis.
  std::optional<std::size_t> chosen;
  std::optional<NumericValues> chosen_values;
  bool chosen_varies = false;
  for (std::size_t a = 0; a < spec.axes.size() && !chosen_varies; ++a) {
    std::optional<NumericValues> n = numeric_values(spec.axes[a]);
    if (!n) continue;
    const auto [lo, hi] = std::minmax_element(n->values.begin(), n->values.end());
    const bool varies = *lo != *hi;
    if (!chosen || varies) chosen = a, chosen_values = std::move(n), chosen_varies = varies;
  }
  if (!chosen) {
    std::string names;
    for (const SweepAxis& a : spec.axes) names += (names.empty() ? "" : ", ") + a.name;
    throw InputError(spec.file, "--plot",
                     "no axis has numeric values to draw the results against (axes: " + names +
                         "); add one with numbers or unit strings, such as /cluster/generate/nodes or "
                         "/simulate/sizes [\"1MiB\", \"1GiB\"], or leave out --plot");
  }
  SweepPlotLayout layout;
  layout.x_axis = *chosen;
  layout.x_values = chosen_values->values;
  const SweepAxis& axis = spec.axes[*chosen];
  const auto [lo, hi] = std::minmax_element(layout.x_values.begin(), layout.x_values.end());
  const bool log = *lo > 0 && *hi / *lo >= kLogSpan;
  std::string what = axis.pointer.to_string();
  if (axis.name != last_token(axis.pointer)) what = axis.name + " = " + what;
  if (chosen_values->bytes) {
    layout.x = {what + " (message size in bytes, log scale)", sim::PlotScale::Bytes, false, "B"};
  } else {
    const bool powers = std::all_of(layout.x_values.begin(), layout.x_values.end(), power_of_two);
    std::string note = chosen_values->unit;
    if (log) note += std::string(note.empty() ? "" : ", ") + "log scale";
    layout.x = {what + (note.empty() ? "" : " (" + note + ")"),
                !log ? sim::PlotScale::Linear : powers ? sim::PlotScale::Log2 : sim::PlotScale::Log10, false,
                chosen_values->unit};
  }

  // y: busbw, else time, else the first metric.
  const auto find_metric = [&](std::string_view token) -> std::optional<std::size_t> {
    for (std::size_t m = 0; m < spec.metrics.size(); ++m)
      if (last_token(spec.metrics[m].pointer) == token) return m;
    return std::nullopt;
  };
  if (auto m = find_metric("busbw_GBps")) {
    layout.y_metric = *m;
    layout.y = {"bus bandwidth (GB/s)", sim::PlotScale::Linear, true, "GB/s"};
  } else if (auto t = find_metric("time_us")) {
    layout.y_metric = *t;
    layout.y = {"time (log scale)", sim::PlotScale::TimeUs, false, ""};
  } else {
    layout.y_metric = 0;
    const SweepMetric& metric = spec.metrics.at(0);
    const std::string unit = ends_with_unit(last_token(metric.pointer));
    layout.y = {metric.name + (unit.empty() ? "" : " (" + unit + ")"), sim::PlotScale::Linear, true, unit};
  }
  return layout;
}

SweepPlot sweep_plot(const SweepSpec& spec, const std::vector<SweepRow>& rows) {
  SweepPlot plot;
  plot.layout = sweep_plot_layout(spec);
  const SweepPlotLayout& layout = plot.layout;
  const SweepAxis& x_axis = spec.axes[layout.x_axis];
  const SweepMetric& y_metric = spec.metrics[layout.y_metric];
  plot.title = spec.file + ": " + y_metric.name + " against " + x_axis.name;

  // Axes zipped with x move with it; every other axis splits the lines.
  std::vector<bool> splits(spec.axes.size(), true);
  for (const auto& factor : spec.factors)
    if (std::find(factor.begin(), factor.end(), layout.x_axis) != factor.end())
      for (std::size_t a : factor) splits[a] = false;

  std::map<std::vector<std::size_t>, std::size_t> series_of;
  std::vector<std::size_t> tried, drawn;
  std::int64_t failed = 0;
  for (std::int64_t i = 0; i < std::int64_t(rows.size()); ++i) {
    const std::vector<std::size_t> at = point_coordinates(spec, i);
    std::vector<std::size_t> key;
    std::string name;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      if (!splits[a]) continue;
      key.push_back(at[a]);
      name += (name.empty() ? "" : ", ") + spec.axes[a].name + "=" + value_text(spec.axes[a].values[at[a]]);
    }
    auto [it, fresh] = series_of.emplace(key, plot.series.size());
    if (fresh) {
      sim::PlotSeries s;
      s.name = name.empty() ? y_metric.name : name;
      s.dashed = plot.series.size() / kColours % 2 == 1;
      s.css_class = "sweep";
      plot.series.push_back(std::move(s));
      tried.push_back(0), drawn.push_back(0);
    }
    const SweepRow& row = rows[std::size_t(i)];
    ++tried[it->second];
    if (row.failed()) {
      ++failed;
      continue;
    }
    const Json& value = row.metrics.at(layout.y_metric);
    if (!value.is_number()) continue;
    plot.series[it->second].points.push_back({layout.x_values[at[layout.x_axis]], value.get<double>()});
    ++drawn[it->second];
  }
  for (std::size_t s = 0; s < plot.series.size(); ++s)
    if (drawn[s] == 0 && tried[s] > 0) plot.series[s].name += " (no points)";
  plot.footnote = std::to_string(rows.size()) + " points";
  if (failed > 0) plot.footnote += ", " + std::to_string(failed) + " failed (left out)";
  return plot;
}

void write_sweep_plot(std::ostream& out, const SweepSpec& spec, const std::vector<SweepRow>& rows) {
  const SweepPlot plot = sweep_plot(spec, rows);
  sim::write_svg_plot(out, plot.title, plot.layout.x, plot.layout.y, plot.series, plot.footnote);
}

}  // namespace ringlab::cli
