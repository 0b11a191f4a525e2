// SVG plots of collective runs against message size: the pictures `compare --plot` and
// `simulate --plot` write. Hand-written SVG (no plotting dependency, works without a display),
// deterministic (fixed precision), log2 size axis labelled 1K, 4M, 1G, and either time on a log axis
// or bus bandwidth on a linear one from 0. The general form (PlotAxis) draws any quantity against any
// other, for `sweep --plot` (a result against a swept parameter).
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace ringlab::sim {

enum class PlotQuantity : std::uint8_t {
  TimeUs,        ///< y: time in microseconds, log scale
  BusBandwidth,  ///< y: nccl-tests' busbw in GB/s (1e9 bytes/s), linear from 0
};

struct PlotPoint {
  double bytes = 0;   ///< x: message size in bytes (> 0), or the x axis' value (PlotAxis)
  double value = 0;   ///< y, in the PlotQuantity's (or y PlotAxis') unit
};

struct PlotSeries {
  std::string name;                 ///< legend text
  std::vector<PlotPoint> points;    ///< drawn in increasing size
  bool dashed = false;
  std::string css_class;            ///< SVG class of the line ("predicted", "measured", ...), may be empty
};

/// How an axis maps values to positions and labels its ticks.
enum class PlotScale : std::uint8_t {
  Bytes,   ///< log2, ticks at powers of two labelled 1K, 4M, 1G (values are bytes)
  TimeUs,  ///< log10, ticks at powers of ten labelled 1us, 10ms, 1s (values are microseconds)
  Log2,    ///< log2, ticks at powers of two labelled 1, 2, 4, 8 (counts: nodes, ranks)
  Log10,   ///< log10, ticks at powers of ten labelled 0.1, 1, 10
  Linear,  ///< linear, about 5 ticks at 1, 2 or 5 times a power of ten
};

struct PlotAxis {
  std::string label;                    ///< the axis title, units included
  PlotScale scale = PlotScale::Linear;
  bool from_zero = false;               ///< Linear: the axis starts at 0 (else at the smallest value)
  std::string unit;                     ///< after values in the points' tooltips ("GB/s"), may be empty
};

/// Writes the plot; `footnote` goes under the legend (may be empty). Series get colours in order.
void write_svg_plot(std::ostream& out, const std::string& title, PlotQuantity quantity,
                    std::span<const PlotSeries> series, const std::string& footnote = {});

/// The same with any axes: x from PlotPoint::bytes, y from PlotPoint::value. A legend longer than the
/// plot makes the picture taller, and long legend text wider (the plot area keeps its size).
void write_svg_plot(std::ostream& out, const std::string& title, const PlotAxis& x, const PlotAxis& y,
                    std::span<const PlotSeries> series, const std::string& footnote = {});

}  // namespace ringlab::sim
