// Command-line validators for counts: CLI11 converts "-3" to an unsigned option as 2^64-3, and its own
// PositiveNumber prints a range up to DBL_MAX, so counts are checked here on the text, before any
// conversion, with a message that says what is accepted.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

namespace ringlab::cli {

/// Accepts a whole number from `lo` to `hi` written in decimal ("8", not "-3", "0x8", "8.5" or "1e3").
inline CLI::Validator integer_between(std::int64_t lo, std::int64_t hi = std::numeric_limits<std::int64_t>::max()) {
  const std::string expected = hi == std::numeric_limits<std::int64_t>::max()
                                   ? "an integer >= " + std::to_string(lo)
                                   : "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, expected](std::string& text) -> std::string {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi)
          return "'" + text + "': expected " + expected;
        return {};
      },
      "");  // no description: the option's help text states the range; --help shows TYPE=default
}

/// Accepts a finite decimal number >= `lo` ("0.5", "2e3").
inline CLI::Validator number_at_least(double lo) {
  const std::string expected = "a number >= " + CLI::detail::to_string(lo);
  return CLI::Validator(
      [lo, expected](std::string& text) -> std::string {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size() || !(v >= lo) || v > std::numeric_limits<double>::max())
          return "'" + text + "': expected " + expected;
        return {};
      },
      "");  // no description: the option's help text states the range; --help shows TYPE=default
}

}  // namespace ringlab::cli
