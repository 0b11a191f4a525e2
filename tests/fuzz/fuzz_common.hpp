// Shared by the libFuzzer targets in tests/fuzz (docs/fuzzing.md): the input as text, and the one
// rule every target applies: a parser may reject its input only with InputError (a clear message naming
// file and line or JSON pointer). Any other exception escapes to libFuzzer, which reports it as a crash,
// as it does a sanitizer report or an assert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ringlab/topology/error.hpp"

namespace ringlab::fuzz {

/// The fuzzer's bytes as the text a user's file would hold (any bytes, NULs included).
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `parse`, accepting InputError as the expected answer to bad input.
template <class F>
void expect_only_input_errors(F&& parse) {
  try {
    parse();
  } catch (const InputError&) {
    // the documented answer to bad input
  }
}

/// combine() builds every host of a fabric: beyond this many hosts an input only costs time (a
/// hostlist such as n[0-999999] is valid), so larger fabrics are parsed but not combined.
inline constexpr std::size_t kMaxCombinedHosts = 64;

}  // namespace ringlab::fuzz
