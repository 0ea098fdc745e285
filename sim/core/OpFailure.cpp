#include "sim/core/OpFailure.h"

#include "sim/core/MemoryAccess.h"

namespace tessim {

void OpFailure::rethrowNaming(std::uint16_t engine, std::uint64_t op) {
    try {
        throw;
    } catch (const OpFailure&) {
        throw;
    } catch (const std::exception& e) {
        if (op == kNoOpIndex)
            throw;
        throw OpFailure(std::current_exception(), e.what(), engine, op);
    }
}

}  // namespace tessim
