// A lazily generated stream of ops for one engine. Generators produce ops a chunk (one loop
// iteration, one tile) at a time, so a stream never holds millions of ops in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/ir/Op.h"

namespace tessim {

// The time of the engine that pulls a stream, for a stream whose ops depend on it (a program
// reading its clock): the engine's local cycle, which under temporal decoupling runs ahead of
// SystemC time.
class EngineClock {
public:
    virtual ~EngineClock() = default;
    virtual std::uint64_t localCycle() const = 0;
    // Its cycles so far with the reason each went to (StallReason's order, sim/engine/
    // StallBreakdown.h: compute, memory, dependency, structural, sync); they add up to localCycle().
    virtual std::uint64_t cyclesFor(std::size_t reason) const {
        (void)reason;
        return 0;
    }
    // Brings SystemC time up to the engine's local time, so that every other engine has run up
    // to it first: for a stream whose next ops depend on what other streams did (a program's
    // threads sharing memory), which then happens in simulated-time order whatever the quantum.
    // Free when no other process has anything to do before then.
    virtual void synchronise() {}
};

class OpStream {
public:
    virtual ~OpStream() = default;
    // Told once, before the first op, by the engine that will pull the stream.
    virtual void setEngineClock(EngineClock* clock) { (void)clock; }
    // The next op, or nullptr at the end of the stream. The pointer stays valid until the next
    // call (streams hand out ops in place: no copy on the engine's hot path).
    virtual const Op* next() = 0;
    // The next run of ops in place: returns how many start at `first` (0 at the end). Engines
    // use it to skip a virtual call per op; the default hands out one op at a time.
    virtual std::size_t nextChunk(const Op*& first) {
        first = next();
        return first ? 1 : 0;
    }
};

// Base for generators: refill() appends the next chunk of ops; the base hands them out.
class ChunkedOpStream : public OpStream {
public:
    const Op* next() final {
        while (pos_ == buffer_.size()) {
            buffer_.clear();
            pos_ = 0;
            if (!refill(buffer_))
                return nullptr;
        }
        return &buffer_[pos_++];
    }
    std::size_t nextChunk(const Op*& first) final {
        while (pos_ == buffer_.size()) {
            buffer_.clear();
            pos_ = 0;
            if (!refill(buffer_))
                return 0;
        }
        first = &buffer_[pos_];
        std::size_t n = buffer_.size() - pos_;
        pos_ = buffer_.size();
        return n;
    }

    // The next ops appended to `out` (a stream that emits this one inside its own: no copy
    // through this stream's buffer); false at the end, `out` as it was.
    bool appendTo(std::vector<Op>& out) {
        if (pos_ < buffer_.size()) {  // ops next() left: hand those first
            out.insert(out.end(), buffer_.begin() + static_cast<std::ptrdiff_t>(pos_), buffer_.end());
            buffer_.clear();
            pos_ = 0;
            return true;
        }
        const std::size_t before = out.size();
        while (out.size() == before) {
            if (!refill(out)) {
                out.resize(before);
                return false;
            }
        }
        return true;
    }

protected:
    // Append the next ops to `out`; return false when the stream has ended (out ignored).
    virtual bool refill(std::vector<Op>& out) = 0;

private:
    std::vector<Op> buffer_;
    std::size_t pos_ = 0;
};

// A stream over ops held in memory (tests; a replayed schedule file streams: ScheduleFileStream).
class VectorOpStream : public OpStream {
public:
    explicit VectorOpStream(std::vector<Op> ops) : ops_(std::move(ops)) {}
    const Op* next() override { return pos_ == ops_.size() ? nullptr : &ops_[pos_++]; }
    std::size_t nextChunk(const Op*& first) override {
        first = ops_.data() + pos_;
        std::size_t n = ops_.size() - pos_;
        pos_ = ops_.size();
        return n;
    }

private:
    std::vector<Op> ops_;
    std::size_t pos_ = 0;
};

// One named stream per engine ("core0", "dma", ...), the unit a schedule generator returns.
struct EngineStream {
    std::string engine;
    std::unique_ptr<OpStream> stream;
};

}  // namespace tessim
