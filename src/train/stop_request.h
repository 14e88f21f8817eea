#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ampbench::train {

// A request to stop, set by SIGINT, SIGTERM, SIGHUP or SIGQUIT and read by the trainer at each step boundary
// (a relaxed atomic load: no lock, no sync). The run then writes what it measured, marked partial.
class StopRequest {
 public:
  // Installs handlers for the stop signals (a terminal hang-up and quit key too, which would otherwise
  // end the run without its report). The first signal asks for a stop; the handler then restores the
  // default action, so a second one ends the process at once.
  static void install_signal_handlers();
  static bool requested();
  // The signal that asked, or 0.
  static int signal_number();
  // Its name, "SIGINT", ...; "" for 0.
  static std::string signal_name();
  // The stop signal of a lower-case name ("sigint", "sighup"), for planted faults.
  static std::optional<int> signal_named(std::string_view lower_case_name);
  // For tests: forget an earlier request.
  static void reset();
};

// What an untimed pass (an audit, the numerics pass, a divergence replay) throws at its next step after a
// stop request, so that it ends there rather than at its end: "stopped by SIGTERM before step 5 of 8".
class PassStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The words every stopped pass's record opens with.
inline constexpr std::string_view kStoppedBy = "stopped by ";
// Throws PassStopped when a stop was requested, saying before which step (of how many the pass runs).
void stop_if_requested(int64_t next_step, int64_t steps);

}  // namespace ampbench::train
