#pragma once

#include <optional>
#include <string>

namespace ampbench::app {

// Run first in main: a standard stream the process was started without (`>&-`) gets /dev/null, so that no
// file the run opens takes its descriptor and receives what was meant for the terminal; a closed stdout
// is remembered, and an export to it fails below. SIGPIPE is ignored: a write to a pipe whose reader has
// gone (`| head`) fails with EPIPE and is told, instead of killing the process with no word.
void guard_standard_streams();

// Writes an export that goes to stdout, whole, and flushes it; the message when any of it could not be
// written (a full disk, a closed stdout or pipe): that export is lost, a write failure like any other.
std::optional<std::string> write_stdout_export(const std::string& text);

// Run last in main, on the command's exit code: flushes what the command printed to stdout (a list, a
// config, a console table, --help). Output that could not be written is lost like a report that could not
// be: one line on stderr and exit 1, whatever the command returned.
int finish_stdout(int exit_code);

}  // namespace ampbench::app
