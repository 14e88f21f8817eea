#pragma once

#include <string_view>

namespace ampbench::numerics {

// The part of a training step that runs now. The training step marks each part as it starts; an active
// observer (op_observer.h) reads the mark to say where an op ran. Without an observer a mark is one relaxed
// store, all it costs the timed trials.
// batch: the step cutting its batch from the data and casting it into the mode's input format, marked apart
// so that no observer counts the inputs as a layer's activations or gradients.
enum class Phase { batch, forward, loss, backward, unscale, optimizer, validation };
std::string_view to_string(Phase phase);

void mark_phase(Phase phase);
Phase current_phase();

}  // namespace ampbench::numerics
