#include "sim/engine/FunctionalExecutor.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/ir/OpSemantics.h"
#include "sim/ir/OpTable.h"

namespace tessim {

// The executor's side of an op's semantics: its registers and the bytes moved.
class FunctionalExecutor::Execution final : public OpExecution {
public:
    Execution(FunctionalExecutor& executor, const Op& op, const std::vector<std::uint8_t>* loaded,
              std::vector<std::uint8_t>* stored)
        : executor_(executor), op_(op), loaded_(loaded), stored_(stored) {}

    std::vector<double>& vector(std::uint8_t r) override {
        if (r >= kVectorRegs)
            fail(fmt::format("op '{}' needs a vector register, not {}", opKindName(op_.kind),
                             registerName(r)));
        return executor_.vregs_[r];
    }
    double& scalar(std::uint8_t r) override {
        if (r < kScalarRegBase || r >= kRegIds)
            fail(fmt::format("op '{}' needs a scalar register, not {}", opKindName(op_.kind),
                             registerName(r)));
        return executor_.sregs_[r - kScalarRegBase];
    }
    unsigned registerBytes() const override { return executor_.registerBytes_; }
    unsigned fieldRegisters(const Op& op) const override { return executor_.fieldRegisters(op); }
    const std::uint8_t* loaded() const override {
        if (!loaded_)
            fail(fmt::format("op '{}' reads loaded bytes, but it loads nothing", opKindName(op_.kind)));
        return loaded_->data();
    }
    std::vector<std::uint8_t>& stored() override {
        if (!stored_)
            fail(fmt::format("op '{}' writes stored bytes, but it stores nothing", opKindName(op_.kind)));
        return *stored_;
    }
    [[noreturn]] void fail(const std::string& what) const override {
        throw std::runtime_error(fmt::format("engine {}: {}", executor_.engine_, what));
    }

private:
    FunctionalExecutor& executor_;
    const Op& op_;
    const std::vector<std::uint8_t>* loaded_;
    std::vector<std::uint8_t>* stored_;
};

FunctionalExecutor::FunctionalExecutor(std::string engine, unsigned registerBytes, bool registerGroups)
    : engine_(std::move(engine)), registerBytes_(registerBytes), registerGroups_(registerGroups),
      vregs_(kVectorRegs) {}

unsigned FunctionalExecutor::fieldRegisters(const Op& op) const {
    return registerGroups_ ? lmulRegisters(op, registerBytes_) : 1;
}

void FunctionalExecutor::storeBytes(const Op& op, std::vector<std::uint8_t>& out) {
    out.assign(memoryElements(op) * dtypeBytes(op.dtype), 0);
    if (const OpSemantics semantics = opInfo(op.kind).semantics) {
        Execution exec(*this, op, nullptr, &out);
        semantics(op, exec);
    }
}

void FunctionalExecutor::execute(const Op& op, const std::vector<std::uint8_t>* loaded) {
    if (const OpSemantics semantics = opInfo(op.kind).semantics) {
        Execution exec(*this, op, loaded, nullptr);
        semantics(op, exec);
    }
}

void FunctionalExecutor::run(const Op& op, FunctionalMemory& memory) {
    const OpDescriptor& info = opInfo(op.kind);
    if (info.opClass == OpClass::Compute || info.opClass == OpClass::Scalar) {
        if (info.unitSemantics)
            throw std::runtime_error(fmt::format(
                "engine {}: op '{}' is computed by its unit, not by the executor", engine_, info.name));
        execute(op, nullptr);
        return;
    }
    if (info.opClass == OpClass::Mark)
        return;
    if (info.opClass != OpClass::Memory)
        throw std::runtime_error(fmt::format(
            "engine {}: op '{}' needs the engine's DMA and synchronisation, not the executor alone", engine_,
            info.name));
    // Elements packed in the buffer, as the engine's timed accesses carry them.
    const std::uint64_t elem = dtypeBytes(op.dtype), elements = memoryElements(op, info);
    const bool strided = op.stride != 0 && op.stride != static_cast<std::int64_t>(elem) && elements > 1;
    auto access = [&](bool write) {
        if (!strided) {
            if (write)
                memory.write(op.space, op.addr, buffer_.data(), elements * elem);
            else
                memory.read(op.space, op.addr, buffer_.data(), elements * elem);
            return;
        }
        for (std::uint64_t i = 0; i < elements; ++i) {
            const std::uint64_t at =
                op.addr + static_cast<std::uint64_t>(static_cast<std::int64_t>(i) * op.stride);
            if (write)
                memory.write(op.space, at, buffer_.data() + i * elem, elem);
            else
                memory.read(op.space, at, buffer_.data() + i * elem, elem);
        }
    };
    if (info.store) {
        storeBytes(op, buffer_);
        access(true);
    } else {
        buffer_.assign(elements * elem, 0);
        access(false);
        execute(op, &buffer_);
    }
}

}  // namespace tessim
