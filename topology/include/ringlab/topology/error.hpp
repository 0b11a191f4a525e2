// InputError: the one exception for bad user input (scenario files, command-line values).
//
// Loaders collect every problem they find before throwing, so a user fixes a file in one pass.
// Each problem names the file, where in it (a JSON pointer such as "/cluster/links/3/bandwidth" or a
// line number) and what was expected. main() catches InputError and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ringlab {

struct Problem {
  std::string file;      ///< file name as given by the user; empty for command-line input
  std::string location;  ///< JSON pointer ("/cluster/links/3/bandwidth") or "line 12"; may be empty
  std::string message;   ///< what is wrong and what was expected
  /// "file: location: message", leaving out empty parts.
  std::string to_string() const;
};

class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Problem> problems);
  InputError(std::string file, std::string location, std::string message);
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::vector<Problem> problems_;
};

/// Accumulates problems while validating; throw_if_any() throws one InputError holding them all.
class ProblemList {
 public:
  explicit ProblemList(std::string file) : file_(std::move(file)) {}
  void add(std::string location, std::string message);
  bool empty() const { return problems_.empty(); }
  std::size_t size() const { return problems_.size(); }
  const std::string& file() const { return file_; }
  void throw_if_any() const;

 private:
  std::string file_;
  std::vector<Problem> problems_;
};

}  // namespace ringlab
