// An AccessObserver that writes every timed access as one JSON object per line (schema
// tessim.access-trace/1, first line): memory, initiator name, source, read/write, address,
// bytes, strided shape, and arrival, completion and wait in picoseconds. `tessim run
// --access-trace FILE` uses it.
#pragma once

#include <cstdio>
#include <string>

#include "sim/core/AccessObserver.h"
#include "sim/core/InitiatorRegistry.h"

namespace tessim {

class AccessTraceWriter : public AccessObserver {
public:
    // Throws std::runtime_error when the file cannot be opened.
    AccessTraceWriter(const std::string& path, const InitiatorRegistry& initiators);
    ~AccessTraceWriter() override;
    AccessTraceWriter(const AccessTraceWriter&) = delete;
    AccessTraceWriter& operator=(const AccessTraceWriter&) = delete;

    void onAccess(const char* memory, const TimedAccess& access) override;
    std::uint64_t accesses() const { return accesses_; }

private:
    std::FILE* file_;
    const InitiatorRegistry& initiators_;
    std::uint64_t accesses_ = 0;
};

}  // namespace tessim
