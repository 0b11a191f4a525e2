// SVG plots of collective runs against message size: the pictures `compare --plot` and
// `simulate --plot` write. Hand-written SVG (no plotting dependency, works without a display),
// deterministic (fixed precision), log2 size axis labelled 1K, 4M, 1G, and either time on a log axis
// or bus bandwidth on a linear one from 0.
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
  double bytes = 0;   ///< x: message size in bytes (> 0)
  double value = 0;   ///< y, in the PlotQuantity's unit
};

struct PlotSeries {
  std::string name;                 ///< legend text
  std::vector<PlotPoint> points;    ///< drawn in increasing size
  bool dashed = false;
  std::string css_class;            ///< SVG class of the line ("predicted", "measured", ...), may be empty
};

/// Writes the plot; `footnote` goes under the legend (may be empty). Series get colours in order.
void write_svg_plot(std::ostream& out, const std::string& title, PlotQuantity quantity,
                    std::span<const PlotSeries> series, const std::string& footnote = {});

}  // namespace ringlab::sim
