#include "workloads/fc/FullyConnectedKernel.h"
#include "workloads/common/FlopStats.h"
#include "workloads/common/ThreadSlices.h"
#include "workloads/fc/FcGemmStream.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/stats/StatsTree.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/EngineStreams.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/PlanMemory.h"
#include "workloads/common/Slices.h"
#include "workloads/common/TestData.h"
#include "workloads/common/VectorOps.h"
#include "workloads/conv/Requant.h"

namespace tessim {
namespace {

class FullyConnectedKernel : public ConfiguredWorkload {
public:
    explicit FullyConnectedKernel(FcParams p) : p_(std::move(p)) {}

    void derivePlan(nlohmann::ordered_json& j) const override {
        echoThreadSlices(j, p_.threads, "first_output", "outputs");
        if (p_.dtype == DType::F16)
            j["accumulate"] = p_.widen ? "f32" : "f16";
        if (p_.isInt8()) {
            j["output_dtype"] = dtypeName(p_.int8.outType());
            if (p_.int8.requantize)
                j["requant_scale"] = p_.int8.scale;
        }
        j["vector_length"] = p_.vlmax;
        j["memory"] = p_.memory->name;
        j["x"] = p_.xAddr;
        j["w"] = p_.wAddr;
        j["y"] = p_.yAddr;
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> s;
        for (unsigned t = 0; t < p_.threads.size(); ++t)
            s.push_back(EngineStream{p_.threads[t].engine, makeFcStream(p_, t)});
        return s;
    }
    // x and W read once, y written once.
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        return {{p_.memory->level,
                 (p_.batch * p_.in + p_.out * p_.in) * p_.elem() + p_.batch * p_.out * p_.yElem()}};
    }
    std::map<std::string, std::uint64_t> compulsoryWriteBytes() const override {
        return {{p_.memory->level, p_.batch * p_.out * p_.yElem()}};
    }
    std::uint64_t coldReadBytes() const override { return (p_.batch * p_.in + p_.out * p_.in) * p_.elem(); }
    void initialise(FunctionalMemory& memory) override {
        if (p_.isInt8()) {
            initialiseInt8(memory);
            return;
        }
        write(memory, p_.xAddr, p_.batch * p_.in, 0);
        write(memory, p_.wAddr, p_.out * p_.in, 1);
        // y holds other values first, so an output the schedule misses shows.
        write(memory, p_.yAddr, p_.batch * p_.out, 2);
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        const unsigned elem = p_.yElem();
        const DType yType = p_.isInt8() ? p_.int8.outType() : p_.dtype;
        std::vector<std::uint8_t> buf(p_.batch * p_.out * elem);
        memory.read(p_.memory->id, p_.yAddr, buf.data(), buf.size());
        for (std::uint64_t b = 0; b < p_.batch; ++b) {
            for (std::uint64_t o = 0; o < p_.out; ++o) {
                const double got = decodeElement(yType, buf.data() + (b * p_.out + o) * elem);
                const double want = reference(b, o);
                if (c.countOutput(got, want, got != want)) {
                    c.firstMismatch = fmt::format("y[{}][{}]: simulated {} reference {}", b, o, got, want);
                    c.locateFirstMismatch(p_.memory->id, p_.yAddr + (b * p_.out + o) * elem);
                }
            }
        }
        return c;
    }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        addFlopStats(stats, p_.flops(), "2 · batch · in · out, all passes", cycles, seconds);
    }

private:
    // INT8: values over the whole range, as the requantisation expects.
    double value(std::uint64_t index, std::uint64_t salt) const {
        return p_.isInt8() ? testInt8(index, salt) : testValue(p_.dtype, index, salt);
    }
    double x(std::uint64_t b, std::uint64_t i) const { return value(b * p_.in + i, 0); }
    double w(std::uint64_t o, std::uint64_t i) const { return value(o * p_.in + i, 1); }

    // INT8: x, W packed [in][out] (a column of outputs one vle8), y prefilled, the constant pool.
    void initialiseInt8(FunctionalMemory& memory) const {
        std::vector<std::uint8_t> x8(p_.batch * p_.in), w8(p_.out * p_.in);
        for (std::uint64_t b = 0; b < p_.batch; ++b)
            for (std::uint64_t i = 0; i < p_.in; ++i)
                x8[b * p_.in + i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(x(b, i)));
        for (std::uint64_t o = 0; o < p_.out; ++o)
            for (std::uint64_t i = 0; i < p_.in; ++i)
                w8[i * p_.out + o] = static_cast<std::uint8_t>(static_cast<std::int8_t>(w(o, i)));
        memory.write(p_.memory->id, p_.xAddr, x8.data(), x8.size());
        memory.write(p_.memory->id, p_.wAddr, w8.data(), w8.size());
        writeTestValues(memory, p_.memory->id, p_.yAddr, p_.batch * p_.out, p_.int8.outType(), 2);
        writeInt8Constants(memory, p_.memory->id, p_.int8);
    }

    void write(FunctionalMemory& memory, std::uint64_t addr, std::uint64_t count, std::uint64_t salt) const {
        writeTestValues(memory, p_.memory->id, addr, count, p_.dtype, salt);
    }

    double reference(std::uint64_t b, std::uint64_t o) const {
        return fcReference(
            p_, [&](std::uint64_t i) { return x(b, i); }, [&](std::uint64_t i) { return w(o, i); });
    }

    FcParams p_;
};

}  // namespace

std::unique_ptr<Workload> makeFullyConnectedKernel(const std::string& kernel, const config::Node& workload,
                                                   const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    (void)kernel;
    FcParams p;
    Reader w = workloadReader(workload);
    // Sizes keep every address a 32-bit integer in the loop's registers.
    const Range<std::uint64_t> size{1, std::uint64_t{1} << 20};
    p.in = w.get<std::uint64_t>("in", size);
    p.out = w.get<std::uint64_t>("out", size);
    p.batch = w.get<std::uint64_t>("batch", 1, size);
    // f16: twice the elements per register (SEW 16), half the bytes, arithmetic rounded to binary16.
    // i8: widening integer MACs (FcParams::int8), outputs requantised to i8 (requant_multiplier,
    // requant_shift, as the NPU reads them) or the i32 accumulators (output_dtype i32).
    const std::string dtype = w.oneOf("dtype", {"f32", "f16", "i8"}, std::string("f32"));
    parseDType(dtype, p.dtype);
    bool requantize = true;
    RequantKeys requant;
    if (p.isInt8()) {
        requantize = w.oneOf("output_dtype", {"i8", "i32"}, std::string("i8")) == "i8";
        requant = readRequant(w);
    }
    p.repeat = w.get<unsigned>("repeat", 1u, Range<unsigned>{1, 1u << 20});
    if (w.has("im2col"))
        w.fail("im2col", "the im2col of a convolution goes with a TT or TR layer (`tt:` or `tr:`); a dense "
                         "convolution is the conv2d kernel (im2col + this GEMM on the K1)");
    w.finish();

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    const std::vector<const EngineInfo*> engines = planEngines(pl, target, "threads");
    p.overOut = pl.oneOf("vectorise", {"in", "out"}, std::string(p.isInt8() ? "out" : "in")) == "out";
    if (p.isInt8() && !p.overOut)
        pl.fail("vectorise", "INT8 is vectorised over `out` (its i32 accumulators hold vectors of outputs)");
    readGemmBlocking(pl, p, 64);
    p.orderedReduce = readReduction(pl, !p.overOut);
    if ((p.lmul & (p.lmul - 1)) != 0)
        pl.fail("lmul", fmt::format("LMUL is 1, 2, 4 or 8, not {}", p.lmul));
    // f16 accumulates in f16 (vfmacc at e16) or in f32 (vfwmacc, then vfredusum at e32).
    if (pl.has("accumulate")) {
        const std::string accumulate =
            pl.oneOf("accumulate", {"f16", "f32"}, std::string(dtypeName(p.dtype)));
        if (p.dtype != DType::F16)
            pl.fail("accumulate", "accumulate chooses f16 or f32 accumulators for dtype f16 only");
        p.widen = accumulate == "f32";
        if (p.widen && p.overOut)
            pl.fail("accumulate", "widening accumulation (accumulate: f32) needs vectorise: in");
        if (p.widen && p.lmul > 4)
            pl.fail("accumulate",
                    fmt::format("f32 accumulators span 2 × lmul registers: lmul must be at most "
                                "4, not {}",
                                p.lmul));
    }
    p.memory = &planMemory(pl, target, *engines[0]);
    pl.finish();
    const EngineInfo& core = *engines[0];
    for (const EngineInfo* e : engines)
        if (e->registerBytes != core.registerBytes || e->vectorRegisters != core.vectorRegisters ||
            e->scalarRegisters != core.scalarRegisters || e->registerGroups != core.registerGroups)
            pl.fail("threads", fmt::format("engines {} and {} have different registers", core.name, e->name));
    if (!core.registerGroups && p.lmul > 1)
        pl.fail("lmul",
                fmt::format("engine '{}' has no register groups: lmul must be 1, not {}", core.name, p.lmul));
    p.group = core.registerGroups ? p.lmul : 1;
    p.vlmax = std::max(1u, core.registerBytes * p.lmul / p.elem());
    p.registerBytes = core.registerBytes;
    // Over `in`: rb·ro accumulators, rb x rows and ro W rows; over `out`: rb·ro accumulators and ro
    // W columns (x values are scalars). Each an aligned group of lmul registers. INT8: the i32
    // accumulators 4 groups each, the W columns as i16 (2) and as loaded (1).
    const unsigned accumulatorGroups = p.rb * p.ro * (p.widen ? 2 : p.isInt8() ? 4 : 1);
    const unsigned groups = accumulatorGroups + (p.overOut ? 0 : p.rb) + p.ro * (p.isInt8() ? 3 : 1);
    if (groups * p.group > core.vectorRegisters) {
        const std::string operands =
            p.overOut ? fmt::format("{} W columns", p.ro) : fmt::format("{} x rows + {} W rows", p.rb, p.ro);
        pl.fail(
            "rb",
            fmt::format("a block of rb {} × ro {} at lmul {} needs {} + {} = {} register groups = {} vector "
                        "registers; engine '{}' has {}",
                        p.rb, p.ro, p.lmul,
                        p.widen      ? fmt::format("{} f32 accumulators × 2", p.rb * p.ro)
                        : p.isInt8() ? fmt::format("{} i32 accumulators × 4", p.rb * p.ro)
                                     : fmt::format("{} accumulators", p.rb * p.ro),
                        operands, groups, groups * p.group, core.name, core.vectorRegisters),
            config::Shortfall::Registers);
    }
    const unsigned scalars = fc_gemm::kFirstPointer + 2 * p.rb + p.ro + (p.overOut ? p.rb : 0);
    // INT8: the requantisation's constants in the FP registers from s32 on.
    if (scalars > (p.isInt8() ? std::min(32u, core.scalarRegisters) : core.scalarRegisters))
        pl.fail("rb",
                fmt::format("a block of rb {} × ro {} needs {} scalar registers ({} + pointers and "
                            "values per batch row and output); engine '{}' has {}",
                            p.rb, p.ro, scalars, fc_gemm::kFirstPointer, core.name, core.scalarRegisters),
                config::Shortfall::Registers);
    // Threads take contiguous slices of the outputs in whole blocks (over `out`: whole vectors).
    const auto slices = contiguousSlices(p.out, engines.size(), p.overOut ? p.vlmax : p.ro);
    for (std::size_t t = 0; t < engines.size(); ++t)
        p.threads.push_back(ThreadSlice{engines[t]->name, slices[t].first, slices[t].count});
    MemoryLayout layout(*p.memory, fc_gemm::kPage);
    p.xAddr = layout.allocate("x", p.batch * p.in * p.elem());
    p.wAddr = layout.allocate("W", p.out * p.in * p.elem());
    p.yAddr = layout.allocate("y", p.batch * p.out * (p.isInt8() && !requantize ? 4 : p.elem()));
    if (p.isInt8()) {
        ConvShape s;  // a dense layer as a 1×1 convolution, for the requantisation's default scale
        s.h = s.w = s.kh = s.kw = 1;
        s.channels = static_cast<std::uint32_t>(p.in);
        s.filters = static_cast<std::uint32_t>(p.out);
        std::int32_t multiplier = 0;
        std::uint32_t shift = 0;
        resolveRequant(s, requant, RequantKeys{}, multiplier, shift);
        p.int8 = int8Outputs(requantize, multiplier, shift);
        if (requantize)
            p.int8.constants = layout.allocate("requantisation constants", kInt8ConstantBytes);
    }
    if (layout.end() > (std::uint64_t{1} << 31))
        w.fail("in",
               fmt::format("x, W and y take {} B; the loop's 32-bit pointers reach 2 GiB", layout.end()));
    layout.requireFits(w, "in",
                       fmt::format("fc of in {} × out {} × batch {} {}", p.in, p.out, p.batch, dtype));
    auto k = std::make_unique<FullyConnectedKernel>(std::move(p));
    k->echoFrom(w, pl);
    return k;
}

}  // namespace tessim
