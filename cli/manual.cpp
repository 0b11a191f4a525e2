// Man page and completion scripts from the CLI11 App tree (manual.hpp).
#include "manual.hpp"

#include <string>
#include <vector>

#include "commands.hpp"

namespace ringlab::cli {
namespace {

/// One command of the tree: its words after "ringlab" ("topo export"), and the App.
struct Command {
  std::string path;  ///< "" for ringlab itself, "topo", "topo export", ...
  const CLI::App* app;
};

bool is_group(const CLI::App* s) { return s->get_name().empty(); }

/// Every command, depth first in declaration order.
void collect(const CLI::App& app, const std::string& path, std::vector<Command>& out) {
  out.push_back({path, &app});
  for (const CLI::App* s : app.get_subcommands([](const CLI::App* x) { return !is_group(x); }))
    collect(*s, path.empty() ? s->get_name() : path + " " + s->get_name(), out);
}

std::vector<Command> commands(const CLI::App& app) {
  std::vector<Command> out;
  collect(app, "", out);
  return out;
}

/// The visible options of `app`, those of its option groups included.
std::vector<const CLI::Option*> options_of(const CLI::App& app) {
  auto visible = [](const CLI::Option* o) { return !o->get_group().empty(); };
  std::vector<const CLI::Option*> out = app.get_options(visible);
  for (const CLI::App* g : app.get_subcommands(is_group))
    for (const CLI::Option* o : g->get_options(visible)) out.push_back(o);
  return out;
}

std::vector<std::string> named_subcommands(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App* x) { return !is_group(x); }))
    out.push_back(s->get_name());
  return out;
}

bool takes_value(const CLI::Option* o) { return !o->get_type_name().empty(); }

/// The allowed values of an option checked with one_of() (its type name ends in "{a, b, c}").
std::vector<std::string> choices(const CLI::Option* o) {
  const std::string type = o->get_type_name();
  const auto open = type.find('{');
  const auto close = type.rfind('}');
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::string item;
  for (char ch : type.substr(open + 1, close - open - 1)) {
    if (ch == ',') {
      out.push_back(item);
      item.clear();
    } else if (ch != ' ') {
      item += ch;
    }
  }
  if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::string> flag_names(const CLI::Option* o) {
  std::vector<std::string> out;
  for (const std::string& s : o->get_snames()) out.push_back("-" + s);
  for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

// ---- roff ---------------------------------------------------------------------------------------

/// Text safe in a roff line: backslashes escaped, hyphens as \-, no leading control character.
std::string roff(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\\') out += "\\e";
    else if (ch == '-') out += "\\-";
    else out += ch;
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out = "\\&" + out;
  return out;
}

std::string value_name(const CLI::Option* o) {
  const std::string type = o->get_type_name();
  const auto colon = type.find(':');
  return colon == std::string::npos ? type : type.substr(0, colon);
}

void write_option(std::ostream& out, const CLI::Option* o) {
  out << ".TP\n";
  if (o->nonpositional()) {
    std::vector<std::string> names;
    for (const std::string& n : flag_names(o)) names.push_back("\\fB" + roff(n) + "\\fR");
    out << join(names, ", ");
    if (takes_value(o)) out << " \\fI" << roff(value_name(o)) << "\\fR";
    out << '\n';
  } else {
    out << "\\fI" << roff(o->get_name(true)) << "\\fR\n";
  }
  std::string text = o->get_description();
  const std::vector<std::string> allowed = choices(o);
  if (!allowed.empty()) text += " (one of " + join(allowed, ", ") + ")";
  if (!o->get_default_str().empty()) text += " [default: " + o->get_default_str() + "]";
  if (o->get_required()) text += " (required)";
  out << roff(text) << '\n';
}

void write_command(std::ostream& out, const Command& c) {
  out << ".SS \"ringlab " << roff(c.path) << "\"\n" << roff(c.app->get_description()) << '\n';
  const std::vector<std::string> subs = named_subcommands(*c.app);
  if (!subs.empty()) out << ".PP\nSubcommands: " << roff(join(subs, ", ")) << ".\n";
  for (const CLI::Option* o : options_of(*c.app))
    if (o != c.app->get_help_ptr()) write_option(out, o);
}

// ---- shell --------------------------------------------------------------------------------------

/// The case label of a command path in the scripts: "" for ringlab, "/topo/export" below it.
std::string key(const std::string& path) {
  std::string out;
  if (!path.empty()) out = "/" + path;
  for (char& ch : out)
    if (ch == ' ') ch = '/';
  return out;
}

struct ShellCommand {
  std::string key;
  std::vector<std::string> subcommands;
  std::vector<std::string> options;  ///< every spelling, e.g. -f --format
  /// (option spelling, allowed values) for one_of() options; (spelling, {}) for other valued options.
  std::vector<std::pair<std::string, std::vector<std::string>>> valued;
};

std::vector<ShellCommand> shell_commands(const CLI::App& app) {
  std::vector<ShellCommand> out;
  for (const Command& c : commands(app)) {
    ShellCommand s{key(c.path), named_subcommands(*c.app), {}, {}};
    for (const CLI::Option* o : options_of(*c.app)) {
      if (!o->nonpositional()) continue;
      for (const std::string& n : flag_names(o)) {
        s.options.push_back(n);
        if (takes_value(o)) s.valued.emplace_back(n, choices(o));
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

/// The loop both scripts share: the command path ("/topo/export") from the words before the cursor, in
/// $cmd (not $path: zsh ties that to $PATH).
void write_path_loop(std::ostream& out, const std::vector<ShellCommand>& cmds, const std::string& first,
                     const std::string& words, const std::string& cursor) {
  out << "  local cmd=\"\" i w\n"
      << "  for ((i = " << first << "; i < " << cursor << "; i++)); do\n"
      << "    w=" << words << "[i]}\n"
      << "    case \"$cmd/$w\" in\n";
  for (const ShellCommand& c : cmds)
    if (!c.key.empty()) out << "      \"" << c.key << "\") cmd=\"$cmd/$w\" ;;\n";
  out << "    esac\n  done\n";
}

}  // namespace

void write_man_page(std::ostream& out, const CLI::App& app) {
  out << ".\\\" Generated by `ringlab --man` from the command's option definitions; do not edit.\n"
      << ".TH RINGLAB 1 \"\" \"" << roff(std::string(kVersionText)) << "\" \"User Commands\"\n"
      << ".SH NAME\nringlab \\- " << roff(app.get_description().substr(app.get_description().find(": ") + 2))
      << '\n'
      << ".SH SYNOPSIS\n.B ringlab\n.I command\n.RI [ options ]\n"
      << ".SH DESCRIPTION\n" << roff(app.get_description()) << ".\nCommands: "
      << roff(join(named_subcommands(app), ", ")) << ". Every command takes \\fB\\-\\-help\\fR. A default applies "
         "when neither the option nor the scenario file's section of the same name sets the value.\n"
      << ".SH COMMANDS\n";
  for (const Command& c : commands(app))
    if (!c.path.empty()) write_command(out, c);
  out << ".SH EXIT STATUS\n"
      << ".TP\n0\nsuccess\n"
      << ".TP\n1\ninternal error (a bug)\n"
      << ".TP\n2\nbad input: scenario, sweep file or option value (nothing is written)\n"
      << ".TP\n3\nsweep: output written, but some points failed\n"
      << ".SH ENVIRONMENT\n.TP\n.B RINGLAB_SIMGRID_LIBRARY\n"
      << "the SimGrid engine library that \\fB\\-\\-engine simgrid\\fR loads (default: "
         "libringlab_simgrid.so in the installation's library directory)\n"
      << ".SH SEE ALSO\nThe documents in docs/ of the source tree: scenario-format.md, results-format.md, "
         "import\\-export.md, sweep.md, training.md.\n";
}

void write_bash_completion(std::ostream& out, const CLI::App& app) {
  const std::vector<ShellCommand> cmds = shell_commands(app);
  out << "# bash completion for ringlab. Generated by `ringlab --completion bash`; do not edit.\n"
      << "_ringlab() {\n"
      << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
  write_path_loop(out, cmds, "1", "${COMP_WORDS", "COMP_CWORD");
  out << "  case \"$cmd $prev\" in\n";
  for (const ShellCommand& c : cmds)
    for (const auto& [option, values] : c.valued) {
      out << "    \"" << c.key << ' ' << option << "\") ";
      if (values.empty()) out << "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
      else out << "COMPREPLY=($(compgen -W \"" << join(values, " ") << "\" -- \"$cur\")); return ;;\n";
    }
  out << "  esac\n  local subs=\"\" opts=\"\"\n  case \"$cmd\" in\n";
  for (const ShellCommand& c : cmds)
    out << "    \"" << c.key << "\") subs=\"" << join(c.subcommands, " ") << "\"; opts=\"" << join(c.options, " ")
        << "\" ;;\n";
  out << "  esac\n"
      << "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return; fi\n"
      << "  if [[ -n $subs ]]; then COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\")); return; fi\n"
      << "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      << "}\n"
      << "complete -o filenames -F _ringlab ringlab\n";
}

void write_zsh_completion(std::ostream& out, const CLI::App& app) {
  const std::vector<ShellCommand> cmds = shell_commands(app);
  out << "#compdef ringlab\n"
      << "# zsh completion for ringlab. Generated by `ringlab --completion zsh`; do not edit.\n"
      << "_ringlab() {\n"
      << "  local cur=${words[CURRENT]} prev=${words[CURRENT-1]}\n";
  write_path_loop(out, cmds, "2", "${words", "CURRENT");
  out << "  case \"$cmd $prev\" in\n";
  for (const ShellCommand& c : cmds)
    for (const auto& [option, values] : c.valued) {
      out << "    (\"" << c.key << ' ' << option << "\") ";
      if (values.empty()) out << "_files; return ;;\n";
      else out << "compadd -- " << join(values, " ") << "; return ;;\n";
    }
  out << "  esac\n  local -a subs opts\n  case \"$cmd\" in\n";
  for (const ShellCommand& c : cmds)
    out << "    (\"" << c.key << "\") subs=(" << join(c.subcommands, " ") << "); opts=(" << join(c.options, " ")
        << ") ;;\n";
  out << "  esac\n"
      << "  if [[ $cur == -* ]]; then compadd -- $opts; return; fi\n"
      << "  if (( ${#subs} )); then compadd -- $subs; return; fi\n"
      << "  _files\n"
      << "}\n"
      << "if [[ ${funcstack[1]} == _ringlab ]]; then _ringlab \"$@\"; else compdef _ringlab ringlab; fi\n";
}

}  // namespace ringlab::cli
