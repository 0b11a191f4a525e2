// Option values and subcommand names checked against their valid names, with suggestions (names.hpp).
#include "names.hpp"

#include <algorithm>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/suggest.hpp"

namespace ringlab::cli {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// The named subcommands of `app` (option groups, which have no name, left out).
std::vector<const CLI::App*> named_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
}

}  // namespace

CLI::Validator one_of(const std::string& what, const std::vector<std::string>& names) {
  CLI::Validator v(
      [what, names](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        return unknown_name_message(what, value, join(names));
      },
      "{" + join(names) + "}");
  return v;
}

void check_subcommand_names(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* current = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word.front() == '-') return;
    const std::vector<const CLI::App*> subs = named_subcommands(*current);
    const auto match = std::find_if(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->check_name(word); });
    if (match != subs.end()) {
      current = *match;
      continue;
    }
    if (current->get_require_subcommand_min() == 0) return;
    std::vector<std::string> names;
    for (const CLI::App* s : subs) names.push_back(s->get_name());
    const std::string path = current == &app ? "command" : current->get_name() + " command";
    throw InputError("", "", unknown_name_message(path, word, join(names)));
  }
}

}  // namespace ringlab::cli
