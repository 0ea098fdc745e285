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

void rethrowProcessFailure(std::optional<OpFailure>* failedOp) {
    std::exception_ptr failure = std::exchange(recordedFailure(), nullptr);
    if (!failure)
        return;
    try {
        std::rethrow_exception(failure);
    } catch (const OpFailure& op) {
        if (failedOp)
            failedOp->emplace(op);
        std::rethrow_exception(op.cause());
    }
}

}  // namespace tessim
