// An error inside a SystemC process (an engine's thread, a DMA's drain process) must not unwind
// through the kernel's coroutine stacks: the process records it and stops the simulation, and
// the caller of sc_start rethrows it on its own stack.
#pragma once

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include "sim/core/OpFailure.h"

namespace tessim {

// Runs a process body; an exception is recorded (the first one wins) and stops the simulation.
void runProcessGuarded(void (*body)(void*), void* context);

template <class F> void runProcessGuarded(F&& body) {
    using Body = std::remove_reference_t<F>;
    runProcessGuarded([](void* f) { (*static_cast<Body*>(f))(); }, &body);
}

// Rethrows the recorded failure, if any, and clears it. Call after sc_start returns. An error an
// op raised is rethrown as it was thrown; `failedOp`, where given, then receives the op.
void rethrowProcessFailure(std::optional<OpFailure>* failedOp = nullptr);

}  // namespace tessim
