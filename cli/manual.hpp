// The man page and the shell completion scripts, generated from the CLI11 option definitions
// themselves (the App tree main() builds), so `--help`, ringlab.1 and completion cannot disagree.
// The build runs `ringlab --man`, `ringlab --completion bash` and `--completion zsh` and installs
// what they print (cli/CMakeLists.txt).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>

namespace ringlab::cli {

/// ringlab.1 in roff (man(7) macros): NAME, SYNOPSIS, DESCRIPTION, one subsection per command
/// (positionals and options with their value type, default and allowed values), EXIT STATUS,
/// ENVIRONMENT, FILES, SEE ALSO. Hidden options (empty group) are left out. Deterministic.
void write_man_page(std::ostream& out, const CLI::App& app);

/// A bash completion script defining _ringlab and `complete -F _ringlab ringlab`: subcommand names,
/// each command's options, the allowed values of options checked with one_of(), files otherwise.
void write_bash_completion(std::ostream& out, const CLI::App& app);

/// The same completion for zsh, as a #compdef file (install it as _ringlab on $fpath).
void write_zsh_completion(std::ostream& out, const CLI::App& app);

}  // namespace ringlab::cli
