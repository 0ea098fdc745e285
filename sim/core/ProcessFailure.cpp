#include "sim/core/ProcessFailure.h"

#include <systemc>

namespace tessim {
namespace {

std::exception_ptr& recordedFailure() {
    static std::exception_ptr failure;
    return failure;
}

}  // namespace

void runProcessGuarded(void (*body)(void*), void* context) {
    try {
        body(context);
    } catch (...) {
        if (!recordedFailure())
            recordedFailure() = std::current_exception();
        sc_core::sc_stop();
    }
}

void rethrowProcessFailure() {
    std::exception_ptr failure = std::exchange(recordedFailure(), nullptr);
    if (failure)
        std::rethrow_exception(failure);
}

}  // namespace tessim
