#pragma once

#include <stdexcept>
#include <string>

namespace ampbench::util {

// A problem with the user's input (a config value, a data file, a command-line value). Programs print it as
// one line and exit 2. `where` is a JSON pointer such as "/train/epochs", or a file name; a layer that
// does not know where its input came from leaves it empty, and the layer that knows adds it (located()).
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::string problem) : InputError("", std::move(problem)) {}
  InputError(std::string where, std::string problem)
      : std::runtime_error(where.empty() ? problem : where + ": " + problem),
        where_(std::move(where)),
        problem_(std::move(problem)) {}

  const std::string& where() const { return where_; }
  const std::string& problem() const { return problem_; }
  // This error at `where`, unless it names a place already.
  InputError located(const std::string& where) const {
    return where_.empty() ? InputError(where, problem_) : *this;
  }

 private:
  std::string where_;
  std::string problem_;
};

}  // namespace ampbench::util
