#include "workloads/vector/StreamingVectorKernel.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
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

namespace tessim {
namespace {

// The barrier every core of a multi-core dot reaches once its partial sum is stored.
constexpr std::uint32_t kPartialsBarrier = 1;

// One core's share: a contiguous slice of the vectors, in that core's memory.
struct CoreSlice {
    std::string engine;
    const MemorySpaceInfo* memory = nullptr;
    std::uint64_t first = 0;  // first element
    std::uint64_t count = 0;  // elements
};

struct StreamingParams {
    std::string kernel;
    std::uint64_t n = 0;
    DType dtype = DType::F32;
    double alpha = 2.0;
    std::vector<CoreSlice> cores;
    bool memoryPerCore = false;                 // plan.memory was a list
    const MemorySpaceInfo* partials = nullptr;  // dot on several cores: where partial sums meet
    unsigned unroll = 8;
    unsigned lmul = 1;
    bool groupedRegisters = false;  // registers in aligned groups of lmul (engines with LMUL groups)
    std::uint32_t vl = 0;           // elements per vector op
    std::uint64_t xAddr = 0, yAddr = 0, outAddr = 0, partialsAddr = 0;
};

class StreamingStream : public ChunkedOpStream {
public:
    StreamingStream(const StreamingParams& p, unsigned core)
        : p_(p), core_(core), space_(p.cores[core].memory->id), next_(p.cores[core].first),
          end_(p.cores[core].first + p.cores[core].count) {}

protected:
    bool refill(std::vector<Op>& out) override {
        const unsigned elem = dtypeBytes(p_.dtype);
        if (!started_) {
            started_ = true;
            if (p_.kernel == "axpy") {
                out.push_back(broadcast(kAlphaReg, p_.alpha));
            } else {
                for (unsigned u = 0; u < p_.unroll; ++u)
                    out.push_back(broadcast(accReg(u), 0.0));
            }
            return true;
        }
        if (next_ >= end_) {
            if (done_)
                return false;
            done_ = true;
            if (p_.kernel == "dot")
                finishDot(out);
            return !out.empty();
        }
        // One group: all loads first so they overlap, then the arithmetic, then the stores.
        std::uint64_t start = next_;
        unsigned blocks = 0;
        std::uint32_t vls[16];
        for (unsigned u = 0; u < p_.unroll && next_ < end_; ++u, ++blocks) {
            vls[u] = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.vl, end_ - next_));
            next_ += vls[u];
        }
        std::uint64_t offset = start;
        for (unsigned u = 0; u < blocks; ++u) {
            out.push_back(vectorLoad(p_.dtype, xReg(u), space_, p_.xAddr + offset * elem, vls[u]));
            out.push_back(vectorLoad(p_.dtype, yReg(u), space_, p_.yAddr + offset * elem, vls[u]));
            offset += vls[u];
        }
        for (unsigned u = 0; u < blocks; ++u) {
            Op op = vectorOp(OpKind::Fma, vls[u]);
            if (p_.kernel == "axpy") {
                op.dst = yReg(u);
                op.src[0] = kAlphaReg;
                op.src[1] = xReg(u);
                op.src[2] = yReg(u);
            } else {
                unsigned acc = accReg((block_ + u) % p_.unroll);
                op.dst = static_cast<std::uint8_t>(acc);
                op.src[0] = xReg(u);
                op.src[1] = yReg(u);
                op.src[2] = static_cast<std::uint8_t>(acc);
            }
            out.push_back(op);
        }
        block_ += blocks;
        if (p_.kernel == "axpy") {
            offset = start;
            for (unsigned u = 0; u < blocks; ++u) {
                out.push_back(vectorStore(p_.dtype, yReg(u), space_, p_.yAddr + offset * elem, vls[u]));
                offset += vls[u];
            }
        }
        return true;
    }

private:
    static constexpr std::uint8_t kAlphaReg = 0;
    // Grouped: alpha in group 0, then the accumulators, x and y, each group lmul registers.
    std::uint8_t group(unsigned g) const { return static_cast<std::uint8_t>(g * p_.lmul); }
    std::uint8_t accReg(unsigned u) const {
        return p_.groupedRegisters ? group(1 + u) : static_cast<std::uint8_t>(1 + u);
    }
    std::uint8_t xReg(unsigned u) const {
        return p_.groupedRegisters ? group(1 + p_.unroll + u) : static_cast<std::uint8_t>(17 + u);
    }
    std::uint8_t yReg(unsigned u) const {
        return p_.groupedRegisters ? group(1 + 2 * p_.unroll + u) : static_cast<std::uint8_t>(33 + u);
    }

    Op vectorOp(OpKind kind, std::uint32_t vl) const { return tessim::vectorOp(kind, p_.dtype, vl); }
    Op broadcast(std::uint8_t reg, double value) const {
        Op op = vectorOp(OpKind::Broadcast, p_.vl);
        op.dst = reg;
        op.imm = value;
        return op;
    }
    // acc0 ← Σ of the `unroll` accumulators, reduced over the lanes into element 0.
    void reduceAccumulators(std::vector<Op>& out) const {
        for (unsigned u = 1; u < p_.unroll; ++u) {
            Op add = vectorOp(OpKind::Add, p_.vl);
            add.dst = accReg(0);
            add.src[0] = accReg(0);
            add.src[1] = accReg(u);
            out.push_back(add);
        }
        out.push_back(reduce(accReg(0), p_.vl));
    }
    Op reduce(std::uint8_t reg, std::uint32_t vl) const {
        Op red = vectorOp(OpKind::Reduce, vl);
        red.dst = reg;
        red.src[0] = reg;
        return red;
    }
    void finishDot(std::vector<Op>& out) const {
        const unsigned elem = dtypeBytes(p_.dtype);
        reduceAccumulators(out);
        const std::uint32_t cores = static_cast<std::uint32_t>(p_.cores.size());
        if (cores == 1) {
            out.push_back(vectorStore(p_.dtype, accReg(0), space_, p_.outAddr, 1));
            return;
        }
        // Every core publishes its partial sum; after the barrier core 0 adds them in core order,
        // one register of partials at a time.
        out.push_back(vectorStore(p_.dtype, accReg(0), p_.partials->id, p_.partialsAddr + core_ * elem, 1));
        out.push_back(syncOp(OpKind::Barrier, kPartialsBarrier, cores));
        if (core_ != 0)
            return;
        for (std::uint32_t c = 0; c < cores; c += p_.vl) {
            const std::uint32_t vl = std::min(p_.vl, cores - c);
            const std::uint8_t reg = c == 0 ? accReg(0) : xReg(0);
            out.push_back(
                vectorLoad(p_.dtype, reg, p_.partials->id, p_.partialsAddr + std::uint64_t{c} * elem, vl));
            out.push_back(reduce(reg, vl));
            if (c > 0) {
                Op add = vectorOp(OpKind::Add, 1);
                add.dst = accReg(0);
                add.src[0] = accReg(0);
                add.src[1] = reg;
                out.push_back(add);
            }
        }
        out.push_back(vectorStore(p_.dtype, accReg(0), space_, p_.outAddr, 1));
    }

    StreamingParams p_;
    unsigned core_;
    std::uint8_t space_;
    bool started_ = false;
    bool done_ = false;
    std::uint64_t next_, end_;
    std::uint64_t block_ = 0;
};

class StreamingVectorKernel : public ConfiguredWorkload {
public:
    explicit StreamingVectorKernel(StreamingParams p) : p_(std::move(p)) {}

    void derivePlan(nlohmann::ordered_json& j) const override {
        if (p_.cores.size() == 1) {
            j["engine"] = p_.cores[0].engine;
        } else {
            j["cores"] = p_.cores.size();
            nlohmann::ordered_json engines = nlohmann::ordered_json::array();
            for (const auto& c : p_.cores)
                engines.push_back(c.engine);
            j["engines"] = engines;
        }
        if (p_.memoryPerCore) {
            nlohmann::ordered_json memories = nlohmann::ordered_json::array();
            for (const auto& c : p_.cores)
                memories.push_back(c.memory->name);
            j["memory"] = memories;
        } else {
            j["memory"] = p_.cores[0].memory->name;
        }
        if (p_.partials)
            j["partials"] = p_.partials->name;
        j["vector_length"] = p_.vl;
    }
    std::vector<EngineStream> streams() override { return streamPerSlice<StreamingStream>(p_, p_.cores); }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        std::uint64_t elem = dtypeBytes(p_.dtype);
        std::uint64_t bytes = p_.kernel == "axpy" ? 3 * p_.n * elem : 2 * p_.n * elem + elem;
        return {{p_.cores[0].memory->level, bytes}};
    }
    // axpy writes y, dot its one result.
    std::map<std::string, std::uint64_t> compulsoryWriteBytes() const override {
        const std::uint64_t elem = dtypeBytes(p_.dtype);
        return {{p_.cores[0].memory->level, p_.kernel == "axpy" ? p_.n * elem : elem}};
    }
    // x and y come from main memory once (a cached target's levels behind the L1).
    std::uint64_t coldReadBytes() const override { return 2 * p_.n * dtypeBytes(p_.dtype); }
    void initialise(FunctionalMemory& memory) override {
        const unsigned elem = dtypeBytes(p_.dtype);
        for (const auto& core : p_.cores) {
            std::vector<std::uint8_t> buf(core.count * elem);
            for (int which = 0; which < 2; ++which) {
                for (std::uint64_t i = 0; i < core.count; ++i)
                    encodeElement(p_.dtype, testValue(p_.dtype, core.first + i, which),
                                  buf.data() + i * elem);
                memory.write(core.memory->id, (which == 0 ? p_.xAddr : p_.yAddr) + core.first * elem,
                             buf.data(), buf.size());
            }
        }
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        const unsigned elem = dtypeBytes(p_.dtype);
        auto compare = [&](std::uint64_t index, double got, double want) {
            if (c.countOutput(got, want, got != want && !(std::isnan(got) && std::isnan(want))))
                c.firstMismatch = fmt::format("element {}: simulated {} reference {}", index, got, want);
        };
        if (p_.kernel == "axpy") {
            for (const auto& core : p_.cores) {
                std::vector<std::uint8_t> buf(core.count * elem);
                memory.read(core.memory->id, p_.yAddr + core.first * elem, buf.data(), buf.size());
                for (std::uint64_t i = 0; i < core.count; ++i) {
                    const std::uint64_t k = core.first + i;
                    compare(k, decodeElement(p_.dtype, buf.data() + i * elem),
                            fmaIn(p_.dtype, p_.alpha, x(k), y(k)));
                }
            }
        } else {
            std::vector<std::uint8_t> buf(elem);
            memory.read(p_.cores[0].memory->id, p_.outAddr, buf.data(), elem);
            compare(0, decodeElement(p_.dtype, buf.data()), referenceDot());
        }
        return c;
    }

private:
    double x(std::uint64_t i) const { return testValue(p_.dtype, i, 0); }
    double y(std::uint64_t i) const { return testValue(p_.dtype, i, 1); }

    // The reference accumulates in the same order as the schedule: per-lane partial sums in
    // `unroll` accumulators, then accumulators added, then lanes summed in order.
    double referencePartial(const CoreSlice& core) const {
        std::vector<std::vector<double>> acc(p_.unroll, std::vector<double>(p_.vl, 0.0));
        const std::uint64_t end = core.first + core.count;
        std::uint64_t block = 0;
        for (std::uint64_t start = core.first; start < end; start += p_.vl, ++block) {
            auto& a = acc[block % p_.unroll];
            for (std::uint64_t l = 0; l < p_.vl && start + l < end; ++l)
                a[l] = fmaIn(p_.dtype, x(start + l), y(start + l), a[l]);
        }
        for (unsigned u = 1; u < p_.unroll; ++u)
            for (std::uint32_t l = 0; l < p_.vl; ++l)
                acc[0][l] = addIn(p_.dtype, acc[0][l], acc[u][l]);
        double sum = 0.0;
        for (std::uint32_t l = 0; l < p_.vl; ++l)
            sum = addIn(p_.dtype, sum, acc[0][l]);
        return sum;
    }
    // Several cores: the partials are reduced a register (vl of them) at a time, the register
    // sums added in order.
    double referenceDot() const {
        if (p_.cores.size() == 1)
            return referencePartial(p_.cores[0]);
        double total = 0.0;
        for (std::size_t c = 0; c < p_.cores.size(); c += p_.vl) {
            double chunk = 0.0;
            for (std::size_t i = c; i < std::min<std::size_t>(c + p_.vl, p_.cores.size()); ++i)
                chunk = addIn(p_.dtype, chunk, referencePartial(p_.cores[i]));
            total = c == 0 ? chunk : addIn(p_.dtype, total, chunk);
        }
        return total;
    }

    StreamingParams p_;
};

}  // namespace

std::unique_ptr<Workload> makeStreamingVectorKernel(const std::string& kernel, const config::Node& workload,
                                                    const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    StreamingParams p;
    p.kernel = kernel;
    Reader w = workloadReader(workload);
    p.n = w.get<std::uint64_t>("n", Range<std::uint64_t>{1, std::uint64_t{1} << 34});
    std::string dtype = w.oneOf("dtype", {"i8", "i16", "i32", "f32", "f64"}, std::string("f32"));
    parseDType(dtype, p.dtype);
    if (kernel == "axpy")
        p.alpha = w.get<double>("alpha", 2.0);
    w.finish();

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    const std::vector<const EngineInfo*> engines = planEngines(pl, target);
    // Every core's stream addresses its memory by the same space id, so a per-core ("my L1")
    // space gives each core its own memory; a list names one space per core instead.
    std::vector<const MemorySpaceInfo*> memories;
    const Node* memoryNode = planReader.node.find("memory");
    if (memoryNode && memoryNode->isSequence()) {
        p.memoryPerCore = true;
        const auto names = pl.get<std::vector<std::string>>("memory");
        if (names.size() != engines.size())
            pl.fail("memory",
                    fmt::format("'memory' names {} memories for {} cores", names.size(), engines.size()));
        for (const auto& name : names)
            memories.push_back(&planSpace(pl, "memory", name, target));
    } else if (pl.has("memory")) {
        memories.assign(engines.size(), &planSpace(pl, "memory", pl.get<std::string>("memory"), target));
    } else {
        // Default: the largest memory the first core reaches, where a long vector naturally lives
        // (a role such as "l1" reaches every core's own instance).
        const MemorySpaceInfo* largest = nullptr;
        for (std::uint8_t id : engines[0]->memories)
            if (!largest || target.spaces[id].size > largest->size)
                largest = &target.spaces[id];
        if (!largest)
            pl.fail("memory", fmt::format("engine '{}' reaches no memory", engines[0]->name));
        memories.assign(engines.size(), largest);
    }
    if (kernel == "dot" && engines.size() > 1)
        p.partials = pl.has("partials") ? &planSpace(pl, "partials", pl.get<std::string>("partials"), target)
                                        : memories[0];
    p.unroll = pl.get<unsigned>("unroll", 8u, Range<unsigned>{1, 16});
    p.lmul = pl.get<unsigned>("lmul", 1u, Range<unsigned>{1, 8});
    if (p.lmul & (p.lmul - 1))
        pl.fail("lmul", fmt::format("LMUL is 1, 2, 4 or 8, not {}", p.lmul));
    pl.finish();
    const unsigned elem = dtypeBytes(p.dtype);
    for (const EngineInfo* e : engines)
        if (e->registerBytes != engines[0]->registerBytes)
            pl.fail("engines",
                    fmt::format("engines {} and {} have different register sizes ({} B, {} B)",
                                engines[0]->name, e->name, engines[0]->registerBytes, e->registerBytes));
    p.vl = std::max(1u, engines[0]->registerBytes * p.lmul / elem);
    // Engines with register groups (LMUL) need each operand in an aligned group of lmul registers.
    if (engines[0]->registerGroups) {
        p.groupedRegisters = true;
        const unsigned needed = p.lmul * (1 + 3 * p.unroll);
        if (needed > engines[0]->vectorRegisters)
            pl.fail("unroll",
                    fmt::format("unroll {} at lmul {} needs {} vector registers in aligned groups; "
                                "engine '{}' has {}",
                                p.unroll, p.lmul, needed, engines[0]->name, engines[0]->vectorRegisters));
    }
    // Balanced contiguous slices of whole vectors, one per core.
    const auto slices = contiguousSlices(p.n, engines.size(), p.vl);
    for (std::size_t i = 0; i < engines.size(); ++i)
        p.cores.push_back(CoreSlice{engines[i]->name, memories[i], slices[i].first, slices[i].count});
    // The same offsets in every core's memory: x, y, the result, then the partial sums.
    MemoryLayout layout(*memories[0], 64);
    p.xAddr = layout.allocate("x", p.n * elem);
    p.yAddr = layout.allocate("y", p.n * elem);
    p.outAddr = layout.allocate("result", elem);
    if (p.partials)
        p.partialsAddr = layout.allocate("partial sums", engines.size() * elem);
    const std::string subject = fmt::format("{} elements of {}", p.n, dtype);
    for (const MemorySpaceInfo* m : memories)
        layout.placedIn(*m).requireFits(w, "n", subject);
    if (p.partials)
        layout.placedIn(*p.partials).requireFits(pl, "partials", subject);
    auto k = std::make_unique<StreamingVectorKernel>(std::move(p));
    k->echoFrom(w, pl);
    return k;
}

}  // namespace tessim
