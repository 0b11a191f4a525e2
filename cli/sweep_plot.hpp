// `ringlab sweep --plot FILE.svg`: a sweep's result drawn against the parameter it sweeps (docs/sweep.md).
//
// x is the first numeric axis of the sweep file: numbers, or unit strings that all read as sizes
// ("1MiB"), rates ("100Gbps") or durations ("5us"); an axis with two or more distinct values is
// preferred to one with a single value. Sizes use the log2 size axis of `simulate --plot`; other axes a
// log axis when they span a factor of 8 or more, else a linear one. y is bus bandwidth in GB/s when a
// metric is /.../busbw_GBps, else time when one is /.../time_us (log scale), else the first metric. One
// line per combination of the other axes (axes zipped with x move with it), labelled "name=value, ...";
// failed points and non-numeric values are left out. Pure: the same rows give the same bytes.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "ringlab/sim/plot.hpp"
#include "sweep_grid.hpp"

namespace ringlab::cli {

/// What `sweep --plot` draws, chosen from the sweep file alone, before any point runs.
struct SweepPlotLayout {
  std::size_t x_axis = 0;         ///< index into spec.axes
  std::vector<double> x_values;   ///< that axis' values as numbers, in the x axis' unit
  sim::PlotAxis x;
  std::size_t y_metric = 0;       ///< index into spec.metrics
  sim::PlotAxis y;
};

/// Throws InputError naming the sweep file and "--plot" when no axis is numeric.
SweepPlotLayout sweep_plot_layout(const SweepSpec& spec);

struct SweepPlot {
  std::string title;
  SweepPlotLayout layout;
  std::vector<sim::PlotSeries> series;  ///< in the order of their first point
  std::string footnote;                 ///< point count, and how many failed
};

/// The plot of finished rows (rows[i] is point i).
SweepPlot sweep_plot(const SweepSpec& spec, const std::vector<SweepRow>& rows);

/// Writes sweep_plot() as SVG.
void write_sweep_plot(std::ostream& out, const SweepSpec& spec, const std::vector<SweepRow>& rows);

}  // namespace ringlab::cli
