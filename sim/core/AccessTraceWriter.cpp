#include "sim/core/AccessTraceWriter.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace tessim {

const char* accessSourceName(AccessSource s, bool write) {
    switch (s) {
    case AccessSource::Engine: return write ? "engine_store" : "engine_load";
    case AccessSource::DmaBurst: return "dma_burst";
    case AccessSource::CacheFill: return "cache_fill";
    case AccessSource::CacheWriteBack: return "cache_writeback";
    case AccessSource::MacOperand: return write ? "mac_result_write" : "mac_operand_read";
    }
    return "unknown";
}

AccessTraceWriter::AccessTraceWriter(const std::string& path, const InitiatorRegistry& initiators)
    : file_(std::fopen(path.c_str(), "w")), initiators_(initiators) {
    if (!file_)
        throw std::runtime_error("--access-trace: cannot write the access trace '" + path +
                                 "': " + std::strerror(errno));
    std::fputs("{\"schema\":\"tessim.access-trace/1\",\"time_unit\":\"ps\"}\n", file_);
}

AccessTraceWriter::~AccessTraceWriter() {
    std::fclose(file_);
}

void AccessTraceWriter::onAccess(const char* memory, const TimedAccess& a) {
    ++accesses_;
    // Names are YAML keys (no quotes or backslashes to escape).
    fmt::print(file_,
               "{{\"memory\":\"{}\",\"initiator\":\"{}\",\"source\":\"{}\",\"space\":{},\"write\":{},"
               "\"addr\":{},\"bytes\":{}",
               memory, initiators_.name(a.initiator), accessSourceName(a.source, a.write), a.space,
               a.write ? "true" : "false", a.addr, a.bytes);
    if (a.elementBytes)
        fmt::print(file_, ",\"element_bytes\":{},\"elements\":{},\"stride\":{}", a.elementBytes, a.elements,
                   a.stride);
    fmt::print(file_, ",\"arrival\":{},\"completion\":{},\"wait\":{}}}\n", a.arrival, a.completion, a.wait);
}

}  // namespace tessim
