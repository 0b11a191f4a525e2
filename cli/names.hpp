// Names typed on the command line: option values that must be one of a few words, and subcommand
// names, both answered with the nearest valid name ("did you mean 'simulate'?") from suggest.hpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ringlab::cli {

/// A CLI11 check that the value is one of `names`; its error reads
/// "unknown <what> 'dto' (did you mean 'dot'?); expected dot, graphml, ...".
CLI::Validator one_of(const std::string& what, const std::vector<std::string>& names);

/// Walks argv down the subcommand tree of `app` before CLI11 parses it: where a command requires a
/// subcommand and the next word is neither an option nor a subcommand, throws InputError
/// "unknown command 'simulat' (did you mean 'simulate'?); expected one of ...". Stops at the first
/// option or at a command that takes no subcommand (its positionals are its own).
void check_subcommand_names(const CLI::App& app, int argc, const char* const* argv);

}  // namespace ringlab::cli
