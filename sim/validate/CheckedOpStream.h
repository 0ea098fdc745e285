// Static checks of a schedule, op by op, as the engine pulls its stream: every register an op
// names exists on the engine (register-budget), every byte it addresses lies inside its memory
// (bounds), every DMA descriptor is well formed (dma-descriptor: zero sizes, destination rows
// that overlap because the stride is shorter than a row, a multicast group the target lacks), every
// vector access and DMA address is aligned as the target requires (alignment).
// They need no timing, only the op and the target, so they apply to generated and replayed
// schedules alike. An op that would stop the simulation (a register or byte that does not exist)
// is reported and replaced by a no-op, so one run finds every such op.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/ir/OpStream.h"
#include "sim/machine/TargetInfo.h"
#include "sim/validate/ValidationError.h"

namespace tessim {

class CheckedOpStream : public OpStream {
public:
    CheckedOpStream(std::unique_ptr<OpStream> inner, const EngineInfo& engine, const TargetInfo& target,
                    ValidationLog& log);

    // The wrapped stream may read its engine's clock (a program's rdcycle): it is told it too.
    void setEngineClock(EngineClock* clock) override { inner_->setEngineClock(clock); }
    const Op* next() override;
    std::size_t nextChunk(const Op*& first) override;
    std::uint64_t opsChecked() const { return index_; }

private:
    // False when the op must not reach the engine.
    bool check(const Op& op);
    void checkAlignment(const Op& op);
    void report(const Op& op, const std::string& kind, const std::string& message, const std::string& memory,
                std::uint64_t address, std::uint64_t bytes);
    std::uint64_t spaceSize(std::uint8_t space, std::string& name) const;

    std::unique_ptr<OpStream> inner_;
    const EngineInfo& engine_;
    const TargetInfo& target_;
    ValidationLog& log_;
    std::uint64_t index_ = 0;    // ops seen
    std::uint64_t current_ = 0;  // index of the op being checked
    std::vector<Op> copy_;       // a chunk with replaced ops
    Op nop_;
};

}  // namespace tessim
