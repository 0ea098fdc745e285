#include "sim/validate/CheckedOpStream.h"

#include <fmt/format.h>

#include "sim/ir/Footprint.h"
#include "sim/ir/OpTable.h"

namespace tessim {

CheckedOpStream::CheckedOpStream(std::unique_ptr<OpStream> inner, const EngineInfo& engine,
                                 const TargetInfo& target, ValidationLog& log)
    : inner_(std::move(inner)), engine_(engine), target_(target), log_(log) {}

const Op* CheckedOpStream::next() {
    const Op* op = inner_->next();
    if (op && !check(*op))
        return &nop_;
    return op;
}

std::size_t CheckedOpStream::nextChunk(const Op*& first) {
    const std::size_t n = inner_->nextChunk(first);
    for (std::size_t i = 0; i < n; ++i) {
        if (check(first[i]))
            continue;
        copy_.assign(first, first + n);
        copy_[i] = nop_;
        for (std::size_t j = i + 1; j < n; ++j)
            if (!check(copy_[j]))
                copy_[j] = nop_;
        first = copy_.data();
        return n;
    }
    return n;
}

void CheckedOpStream::report(const Op& op, const std::string& kind, const std::string& message,
                             const std::string& memory, std::uint64_t address, std::uint64_t bytes) {
    ValidationError e;
    e.kind = kind;
    e.engine = engine_.name;
    e.opIndex = current_;
    e.opEngine = engine_.name;
    e.memory = memory;
    if (!memory.empty()) {
        e.address = address;
        e.bytes = bytes;
    }
    e.message = fmt::format("{} op {} ({}): {}", engine_.name, current_, opKindName(op.kind), message);
    log_.add(std::move(e), fmt::format("{}|{}|{}|{}", kind, engine_.name, opKindName(op.kind), memory));
}

std::uint64_t CheckedOpStream::spaceSize(std::uint8_t space, std::string& name) const {
    for (const auto& s : target_.spaces)
        if (s.id == space) {
            name = s.name;
            if (s.role && !s.instances.empty())  // a role: the size of its instances
                for (const auto& c : target_.spaces)
                    if (c.id == s.instances.front())
                        return c.size;
            return s.size;
        }
    name = fmt::format("space {}", space);
    return 0;
}

// Vector loads and stores start where the engine allows (strided: each element does), DMA
// descriptors' addresses and strides are multiples of the DMA's alignment.
void CheckedOpStream::checkAlignment(const Op& op) {
    auto misaligned = [](std::int64_t v, std::uint64_t a) {
        return a > 1 && static_cast<std::uint64_t>(v) % a != 0;
    };
    const OpDescriptor& info = opInfo(op.kind);
    if (info.vectorAccess() && engine_.vectorAlignment != VectorAlignment::None) {
        const bool element = engine_.vectorAlignment == VectorAlignment::Element;
        const std::uint64_t a = element ? dtypeBytes(op.dtype) : engine_.registerBytes;
        std::string name;
        spaceSize(op.space, name);
        const char* what = element ? "its element size" : "a vector register";
        if (misaligned(static_cast<std::int64_t>(op.addr), a))
            report(op, "alignment",
                   fmt::format("starts at {}+{:#x}, not a multiple of {} B ({}): engine {} needs "
                               "{}-aligned vector accesses",
                               name, op.addr, a, what, engine_.name, element ? "element" : "register"),
                   name, op.addr, memoryElements(op) * dtypeBytes(op.dtype));
        else if (op.stride != 0 && misaligned(op.stride < 0 ? -op.stride : op.stride, a))
            report(op, "alignment",
                   fmt::format("stride {} B is not a multiple of {} B ({}): its elements after the first "
                               "are misaligned on engine {}",
                               op.stride, a, what, engine_.name),
                   name, op.addr, memoryElements(op) * dtypeBytes(op.dtype));
    }
    if (info.layout != OpLayout::Transfer || engine_.dmaAlignment <= 1)
        return;
    const DmaArgs& d = op.dma;
    const std::uint64_t a = engine_.dmaAlignment;
    const std::pair<const char*, std::int64_t> fields[] = {
        {"source address", static_cast<std::int64_t>(d.src)},
        {"destination address", static_cast<std::int64_t>(d.dst)},
        {"source row stride", d.rows > 1 ? d.srcRowStride : 0},
        {"destination row stride", d.rows > 1 ? d.dstRowStride : 0},
        {"source plane stride", d.planes > 1 ? d.srcPlaneStride : 0},
        {"destination plane stride", d.planes > 1 ? d.dstPlaneStride : 0},
        {"multicast stride", d.multicastCount > 0 ? static_cast<std::int64_t>(d.multicastStride) : 0}};
    for (const auto& [field, value] : fields) {
        if (!misaligned(value < 0 ? -value : value, a))
            continue;
        report(op, "alignment",
               fmt::format("{} {:#x} is not a multiple of {} B, the alignment of engine {}'s DMA", field,
                           value, a, engine_.name),
               "", 0, 0);
        return;
    }
}

bool CheckedOpStream::check(const Op& op) {
    current_ = index_++;
    bool ok = true;
    // Register budget: every register the op names exists on this engine.
    const OpDescriptor& info = opInfo(op.kind);
    const std::uint8_t regs[] = {op.dst, op.src[0], op.src[1], op.src[2], op.base};
    for (std::uint8_t r : regs) {
        if (r == kNoReg || !info.namesRegisters())
            continue;
        const bool scalar = r >= kScalarRegBase;
        const unsigned n = scalar ? r - kScalarRegBase : r;
        const unsigned have = scalar ? engine_.scalarRegisters : engine_.vectorRegisters;
        if (n >= have) {
            report(op, "register-budget",
                   fmt::format("names {}{}, but the engine has {} {} registers ({}0..{}{})",
                               scalar ? 's' : 'v', n, have, scalar ? "scalar" : "vector", scalar ? 's' : 'v',
                               scalar ? 's' : 'v', have == 0 ? 0 : have - 1),
                   "", 0, 0);
            ok = false;
            break;
        }
    }
    if (info.layout == OpLayout::Transfer) {
        const DmaArgs& d = op.dma;
        if (d.rowBytes == 0 || d.rows == 0 || d.planes == 0)
            report(op, "dma-descriptor",
                   fmt::format("moves nothing: row_bytes {}, rows {}, planes {} (each must be at least 1)",
                               d.rowBytes, d.rows, d.planes),
                   "", 0, 0);
        else if (d.rows > 1 && d.dstRowStride >= 0 && static_cast<std::uint64_t>(d.dstRowStride) < d.rowBytes)
            report(
                op, "dma-descriptor",
                fmt::format("destination row stride {} B is shorter than a row of {} B: its rows overwrite "
                            "each other",
                            d.dstRowStride, d.rowBytes),
                "", 0, 0);
        if (d.group != 0 && d.group >= target_.groups.size() + 1) {
            report(op, "dma-descriptor",
                   fmt::format("names multicast group {}, which the target lacks", d.group), "", 0, 0);
            return false;
        }
        if (d.rowBytes == 0)
            return ok;
    }
    checkAlignment(op);
    // Bounds: every byte inside its memory.
    for (const FootprintRange& r : footprint(op)) {
        std::string name;
        const std::uint64_t size = spaceSize(r.space, name);
        const std::uint64_t lo = r.lowest(), hi = r.highest();
        if (size == 0 && name.rfind("space ", 0) == 0) {
            report(op, "bounds", fmt::format("addresses memory {}, which the target lacks", name), name, lo,
                   hi - lo);
            ok = false;
            continue;
        }
        if (hi > size || lo > hi) {
            report(op, "bounds",
                   fmt::format("{} [{:#x}, {:#x}) of {} runs past the end of {} ({} B)",
                               r.write ? "writes" : "reads", lo, hi, name, name, size),
                   name, lo, hi - lo);
            ok = false;
        }
    }
    return ok;
}

}  // namespace tessim
