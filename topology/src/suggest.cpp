// Edit distance and "did you mean" suggestions (suggest.hpp).
#include "ringlab/topology/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace ringlab {
namespace {

constexpr std::size_t kTypoCharsPerEdit = 3;  ///< one edit tolerated per this many typed characters
constexpr std::size_t kMinPrefix = 3;         ///< a typed prefix this long names its completion

char lower(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }

bool same_letter(char a, char b) { return lower(a) == lower(b); }

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
}

bool is_prefix_of(std::string_view prefix, std::string_view name) {
  if (prefix.size() < kMinPrefix || prefix.size() >= name.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), name.begin(), same_letter);
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: two back (for swaps), one back, and the current one.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = same_letter(a[i - 1], b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      const bool swapped = i > 1 && j > 1 && same_letter(a[i - 1], b[j - 2]) && same_letter(a[i - 2], b[j - 1]);
      if (swapped) current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> nearest_name(std::string_view typed, std::span<const std::string> names) {
  if (typed.empty()) return std::nullopt;
  if (std::find(names.begin(), names.end(), typed) != names.end()) return std::nullopt;
  const std::size_t tolerated = std::max<std::size_t>(1, typed.size() / kTypoCharsPerEdit);
  std::optional<std::string> best;
  std::size_t best_distance = tolerated + 1;
  bool tied = false;  // two names equally near: no single suggestion
  for (const std::string& name : names) {
    const std::size_t d = edit_distance(typed, name);
    if (d == best_distance) tied = true;
    if (d < best_distance) {
      best = name;
      best_distance = d;
      tied = false;
    }
  }
  if (tied) return std::nullopt;
  if (best) return best;
  for (const std::string& name : names)
    if (is_prefix_of(typed, name)) return name;
  return std::nullopt;
}

std::vector<std::string> names_in_list(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    start = end + 1;
    // "c or d": both sides are names.
    for (std::size_t or_at; (or_at = item.find(" or ")) != std::string_view::npos;) {
      std::string_view head = trimmed(item.substr(0, or_at));
      std::size_t n = 0;
      while (n < head.size() && is_name_char(head[n])) ++n;
      if (n > 0) out.emplace_back(head.substr(0, n));
      item = item.substr(or_at + 4);
    }
    item = trimmed(item);
    std::size_t n = 0;
    while (n < item.size() && is_name_char(item[n])) ++n;
    if (n > 0) out.emplace_back(item.substr(0, n));
  }
  return out;
}

std::string did_you_mean(std::string_view typed, std::string_view list) {
  const std::vector<std::string> names = names_in_list(list);
  if (auto near = nearest_name(typed, names)) return " (did you mean '" + *near + "'?)";
  return "";
}

std::string unknown_name_message(std::string_view what, std::string_view typed, std::string_view list) {
  const bool several = names_in_list(list).size() > 2;
  return "unknown " + std::string(what) + " '" + std::string(typed) + "'" + did_you_mean(typed, list) + "; expected " +
         (several ? "one of " : "") + std::string(list);
}

}  // namespace ringlab
