// Duplicate object keys in JSON text. nlohmann::json keeps the last of two equal keys without a word,
// and its SAX interface gives no positions, so parse_json_text() runs this scan over text that has
// already parsed: one pass, tracking the open objects and arrays, that reports every key seen twice in
// one object with the JSON pointer and the line and column of both occurrences.
#pragma once

#include <string>
#include <string_view>

namespace ringlab::detail {

/// Throws InputError naming `file`, one problem per repeated key: location = JSON pointer of the key,
/// message = `duplicate key "k" at line L2, column C2 (first at line L1, column C1)`.
/// Precondition: `text` is valid JSON (comments allowed), e.g. nlohmann::json::parse accepted it.
/// Linear in the size of the text.
void check_duplicate_keys(std::string_view text, const std::string& file);

}  // namespace ringlab::detail
