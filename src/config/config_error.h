#pragma once

#include <stdexcept>
#include <string>

namespace ampbench::config {

// A problem with the user's input (config file or command line). The CLI maps it to exit code 2 and
// prints it as one line; `where` is a JSON pointer such as "/train/epochs" or a file name.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string where, std::string problem)
      : std::runtime_error(where.empty() ? problem : where + ": " + problem),
        where_(std::move(where)),
        problem_(std::move(problem)) {}

  const std::string& where() const { return where_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string where_;
  std::string problem_;
};

}  // namespace ampbench::config
