// Text formatting shared by the table writers (nccl-tests report, comparison, training report).
#pragma once

#include <cstdio>
#include <string>

namespace ringlab::sim::detail {

/// `value` with `digits` decimals ("%.*f").
inline std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

/// `s` right-aligned in `width` columns (unchanged when longer).
inline std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace ringlab::sim::detail
