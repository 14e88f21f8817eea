#pragma once

#include <stdexcept>
#include <string>

#include "util/input_error.h"

namespace ampbench::cli {

// A command line that asks for what cannot be done (options that conflict, a missing one): one line,
// "usage error: " and its text, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One of ampbench's commands, its options parsed. main runs the one the command line chose and turns what
// it throws into one line and an exit code, the same way for every command.
class Command {
 public:
  virtual ~Command() = default;
  // Does the work, prints its outcome, and returns the exit code the outcome calls for (app/exit_codes.h).
  virtual int run() = 0;
  // The one line a bad input gets, naming it as this command's user knows it (exit 2).
  virtual std::string input_error_line(const util::InputError& error) const = 0;
};

}  // namespace ampbench::cli
