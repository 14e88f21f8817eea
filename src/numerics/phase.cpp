#include "numerics/phase.h"

#include <atomic>

#include "util/enum_names.h"

namespace ampbench::numerics {
namespace {

constexpr util::EnumNames<Phase, 7> kPhaseNames{{{Phase::batch, "batch"},
                                                 {Phase::forward, "forward"},
                                                 {Phase::loss, "loss"},
                                                 {Phase::backward, "backward"},
                                                 {Phase::unscale, "unscale"},
                                                 {Phase::optimizer, "optimizer"},
                                                 {Phase::validation, "validation"}}};

// Global, not per thread: on a GPU the backward pass runs on autograd's device threads.
std::atomic<Phase> g_phase{Phase::forward};

}  // namespace

std::string_view to_string(Phase phase) { return util::name_of(kPhaseNames, phase); }

void mark_phase(Phase phase) { g_phase.store(phase, std::memory_order_relaxed); }

Phase current_phase() { return g_phase.load(std::memory_order_relaxed); }

}  // namespace ampbench::numerics
