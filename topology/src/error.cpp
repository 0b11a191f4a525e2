// InputError and ProblemList: formatting and collection of user-input problems.
#include "ringlab/topology/error.hpp"

namespace ringlab {
namespace {
std::string join(const std::vector<Problem>& problems) {
  std::string out;
  for (const Problem& p : problems) {
    if (!out.empty()) out += '\n';
    out += p.to_string();
  }
  return out;
}
}  // namespace

std::string Problem::to_string() const {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (!location.empty()) out += location + ": ";
  out += message;
  return out;
}

InputError::InputError(std::vector<Problem> problems)
    : std::runtime_error(join(problems)), problems_(std::move(problems)) {}

InputError::InputError(std::string file, std::string location, std::string message)
    : InputError(std::vector<Problem>{Problem{std::move(file), std::move(location), std::move(message)}}) {}

void ProblemList::add(std::string location, std::string message) {
  problems_.push_back(Problem{file_, std::move(location), std::move(message)});
}

void ProblemList::throw_if_any() const {
  if (!problems_.empty()) throw InputError(problems_);
}

}  // namespace ringlab
