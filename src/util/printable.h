#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ampbench::util {

// User text as an error line may quote it: control bytes (an escape sequence, a NUL) written as \xNN, and
// text over `max_bytes` shortened to its start and end around the number of bytes left out, so that no
// input can take over the terminal or flood it.
std::string printable(std::string_view text, size_t max_bytes = 200);

}  // namespace ampbench::util
