#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace ampbench::app {

// A person at a terminal: where a live progress line makes sense.
inline bool interactive_terminal(FILE* stream) {
  const char* term = std::getenv("TERM");
  return isatty(fileno(stream)) && term && std::string(term) != "dumb";
}

// Colour only for a person at a terminal that wants it (https://no-color.org).
inline bool colour_for(FILE* stream) {
  return interactive_terminal(stream) && std::getenv("NO_COLOR") == nullptr;
}

}  // namespace ampbench::app
