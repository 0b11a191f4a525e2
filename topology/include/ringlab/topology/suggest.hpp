// "Did you mean ...?" for names a user types: algorithm, protocol, node template, fabric kind, link
// kind, GPU model, output format, subcommand, scenario key. One edit distance (optimal string
// alignment: insertions, deletions, substitutions and swaps of two neighbours, each costing 1) and
// one rule for "close enough", shared by the scenario loader, the simulator's settings and the
// command line, so every error suggests the same way.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

/// Optimal-string-alignment edit distance between `a` and `b`, comparing ASCII letters
/// case-insensitively. O(|a| * |b|) time and O(|b|) memory.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The name of `names` nearest to `typed` when it is close enough to be a likely typo: at most
/// max(1, |typed| / 3) edits away, or `typed` a case-insensitive prefix of the name (three or more
/// characters). nullopt when nothing is close, when two names are equally close (no guessing between
/// dgx_a100 and dgx_h100 for "dgx_b200"), or when `typed` is itself listed.
std::optional<std::string> nearest_name(std::string_view typed, std::span<const std::string> names);

/// The names in a human-written list of alternatives, as error messages give them: "a, b, c or d",
/// "rdma, roce (= rdma), tcp", "allreduce, ... or reduce". Each item's leading name (letters, digits,
/// '_', '-', '.', ':') is kept, so prose after a name ("(= rdma)") is dropped.
std::vector<std::string> names_in_list(std::string_view list);

/// " (did you mean 'ring'?)" when a name of `list` (names_in_list) is near `typed`, "" otherwise: put
/// after the quoted name in an "unknown ..." message.
std::string did_you_mean(std::string_view typed, std::string_view list);

/// The message for an unknown name: "unknown <what> '<typed>' (did you mean '<near>'?); expected
/// <list>", the "did you mean" part only when a listed name is near.
std::string unknown_name_message(std::string_view what, std::string_view typed, std::string_view list);

}  // namespace ringlab
