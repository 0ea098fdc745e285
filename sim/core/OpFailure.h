// An error raised while an engine executed an op (in the engine, or in a DMA transfer the op
// started), with the op named: its engine (an InitiatorRegistry id) and its index in that engine's
// stream. A replayed schedule's runtime error can then name the schedule line of the op. It holds
// the error as thrown, which rethrowProcessFailure rethrows: callers see the error's own type.
#pragma once

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <utility>

namespace tessim {

class OpFailure : public std::runtime_error {
public:
    OpFailure(std::exception_ptr cause, const char* what, std::uint16_t engine, std::uint64_t op)
        : std::runtime_error(what), cause_(std::move(cause)), engine_(engine), op_(op) {}

    std::uint16_t engine() const { return engine_; }
    std::uint64_t op() const { return op_; }
    const std::exception_ptr& cause() const { return cause_; }

    // In a catch block: rethrows the exception being handled as an OpFailure naming op `op` of
    // `engine`, or unchanged where it already names its op (the innermost knows it best), where
    // the op is unknown (kNoOpIndex), or where it is not a std::exception.
    [[noreturn]] static void rethrowNaming(std::uint16_t engine, std::uint64_t op);

private:
    std::exception_ptr cause_;
    std::uint16_t engine_;
    std::uint64_t op_;
};

}  // namespace tessim
