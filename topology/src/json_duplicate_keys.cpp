// Duplicate-key scan of JSON text (json_duplicate_keys.hpp).
#include "json_duplicate_keys.hpp"

#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/json_reader.hpp"

namespace ringlab::detail {
namespace {

constexpr std::size_t kLinearKeys = 16;  ///< keys of an object searched linearly before a hash map is built

/// One open object or array.
struct Frame {
  bool object = false;
  bool expecting_key = false;  ///< object: the next string is a key
  std::size_t index = 0;       ///< array: index of the current element
  std::string key;             ///< object: the current key (decoded)
  std::vector<std::pair<std::string, std::size_t>> keys;  ///< object: keys seen and their offsets
  std::unordered_map<std::string, std::size_t> key_index;  ///< filled once keys outgrows kLinearKeys

  /// Offset of an earlier occurrence of `k`, or npos; records `k` at `offset` otherwise.
  std::size_t find_or_add(const std::string& k, std::size_t offset) {
    if (keys.size() < kLinearKeys) {
      for (const auto& [seen, at] : keys)
        if (seen == k) return at;
      keys.emplace_back(k, offset);
      return std::string::npos;
    }
    if (key_index.empty())
      for (const auto& [seen, at] : keys) key_index.emplace(seen, at);
    const auto [it, added] = key_index.emplace(k, offset);
    return added ? std::string::npos : it->second;
  }
};

/// "line 3, column 5" of the 0-based byte `offset`.
std::string line_and_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] != '\n') continue;
    ++line;
    line_start = i + 1;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

/// The JSON pointer of the object at the top of `stack` (the key currently open in each object, the
/// index in each array).
std::string pointer_of(const std::vector<Frame>& stack) {
  std::string path;
  for (std::size_t i = 0; i + 1 < stack.size(); ++i)
    path = stack[i].object ? child_path(path, stack[i].key) : child_path(path, stack[i].index);
  return path;
}

/// Offset just past the string starting at `open` (a '"').
std::size_t skip_string(std::string_view text, std::size_t open) {
  std::size_t i = open + 1;
  while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
  return i + 1;
}

/// Offset just past the comment starting at `at` ("//" or "/*").
std::size_t skip_comment(std::string_view text, std::size_t at) {
  if (text.substr(at, 2) == "//") {
    const std::size_t end = text.find('\n', at);
    return end == std::string_view::npos ? text.size() : end + 1;
  }
  const std::size_t end = text.find("*/", at + 2);
  return end == std::string_view::npos ? text.size() : end + 2;
}

/// The key a string token spells, escapes decoded ("\u0061" and "a" are the same key).
std::string decode_key(std::string_view token) {
  if (token.find('\\') == std::string_view::npos) return std::string(token.substr(1, token.size() - 2));
  return nlohmann::json::parse(token).get<std::string>();
}

}  // namespace

void check_duplicate_keys(std::string_view text, const std::string& file) {
  ProblemList problems(file);
  std::vector<Frame> stack;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t end = skip_string(text, i);
      if (!stack.empty() && stack.back().object && stack.back().expecting_key) {
        Frame& top = stack.back();
        top.key = decode_key(text.substr(i, end - i));
        top.expecting_key = false;
        if (const std::size_t first = top.find_or_add(top.key, i); first != std::string::npos)
          problems.add(child_path(pointer_of(stack), top.key),
                       "duplicate key \"" + top.key + "\" at " + line_and_column(text, i) + " (first at " +
                           line_and_column(text, first) + "): expected each key once per object");
      }
      i = end;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
      i = skip_comment(text, i);
      continue;
    }
    if (c == '{' || c == '[') {
      Frame frame;
      frame.object = c == '{';
      frame.expecting_key = frame.object;
      stack.push_back(std::move(frame));
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    } else if (c == ',' && !stack.empty()) {
      if (stack.back().object) stack.back().expecting_key = true;
      else ++stack.back().index;
    }
    ++i;
  }
  problems.throw_if_any();
}

}  // namespace ringlab::detail
