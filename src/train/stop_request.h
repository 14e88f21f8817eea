#pragma once

namespace ampbench::train {

// A request to stop, set by SIGINT/SIGTERM and read by the trainer at each step boundary (a relaxed
// atomic load: no lock, no sync). The run then writes what it measured, marked partial.
class StopRequest {
 public:
  // Installs handlers for SIGINT and SIGTERM. The first signal asks for a stop; the handler then
  // restores the default action, so a second one ends the process at once.
  static void install_signal_handlers();
  static bool requested();
  // The signal that asked (SIGINT, SIGTERM), or 0.
  static int signal_number();
  // For tests: forget an earlier request.
  static void reset();
};

}  // namespace ampbench::train
