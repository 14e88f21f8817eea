#pragma once

#include <optional>
#include <string>

namespace ampbench::app {

// Writes an export that goes to stdout, whole, and flushes it; the message when any of it could not be
// written (a full disk, a closed stdout or pipe): that export is lost, a write failure like any other.
std::optional<std::string> write_stdout_export(const std::string& text);

}  // namespace ampbench::app
