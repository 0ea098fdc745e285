#include "workloads/memory/MemoryStreamKernel.h"
#include "workloads/common/ThreadSlices.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
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

namespace tessim {
namespace {

// Fork/join of the threads: thread 0 signals the fork event, the others join it; every thread
// reaches the closing barrier.
constexpr std::uint32_t kForkEvent = 1;
constexpr std::uint32_t kJoinBarrier = 2;
// Scalar registers (addresses, counters) are 32-bit integers; vector elements are `plan.sew`
// bits (8, 16 or 32: vle8/vse8 … vle32/vse32), the bytes copied bit for bit.
constexpr DType kScalar = DType::I32;
// Buffers start on page boundaries, as an allocator hands out large buffers.
constexpr std::uint64_t kPage = 4096;

// Registers: x0 reads zero, as in RISC-V; the vector group starts at v0.
constexpr std::uint8_t kZero = scalarReg(0);
constexpr std::uint8_t kSrc = scalarReg(1);
constexpr std::uint8_t kDst = scalarReg(2);
constexpr std::uint8_t kLeft = scalarReg(3);  // elements left in the pass (the AVL)
constexpr std::uint8_t kFlag = scalarReg(4);
constexpr std::uint8_t kVl = scalarReg(5);
constexpr std::uint8_t kPass = scalarReg(6);
constexpr std::uint8_t kDataReg = 0;

struct MemoryStreamParams {
    std::string kernel;  // memcpy | memset | memread
    std::uint64_t bytes = 0;
    unsigned repeat = 1;
    std::uint8_t value = 0;  // memset's byte
    unsigned lmul = 8;
    DType element = DType::I32;  // plan.sew
    unsigned elementBytes = 4;
    std::uint32_t vlmax = 0;  // elements per vector op
    const MemorySpaceInfo* memory = nullptr;
    std::uint64_t src = 0, dst = 0;
    std::vector<ThreadSlice> threads;

    bool copies() const { return kernel == "memcpy"; }
    bool onlyReads() const { return kernel == "memread"; }
    // memset's byte replicated over an element, as vmv.v.x splats it (a signed integer).
    double splat() const {
        switch (elementBytes) {
        case 1: return static_cast<double>(static_cast<std::int8_t>(value));
        case 2: return static_cast<double>(static_cast<std::int16_t>(std::uint16_t{value} * 0x0101u));
        default: return static_cast<double>(static_cast<std::int32_t>(std::uint32_t{value} * 0x01010101u));
        }
    }
};

class MemoryStream : public ChunkedOpStream {
public:
    MemoryStream(const MemoryStreamParams& p, unsigned thread)
        : p_(p), thread_(thread), slice_(p.threads[thread]) {
        const double step = static_cast<double>(std::uint64_t{p_.vlmax} * p_.elementBytes);
        setVl_ = vsetvl(p_.vlmax);
        setVl_.src[0] = kLeft;
        load_ = vectorLoad(p_.element, kDataReg, p_.memory->id, 0, p_.vlmax);
        store_ = vectorStore(p_.element, kDataReg, p_.memory->id, 0, p_.vlmax);
        // The X60 prices a vector access by its register group, not its vl: the short tail
        // costs what a whole group does (x60-instructions-vl1.csv: vle8 at e8m8 with vl = 1,
        // 16.5 cycles).
        load_.lmul8 = store_.lmul8 = group();
        advanceSrc_ = scalar(OpKind::SAdd, kSrc, kSrc, step);
        advanceDst_ = scalar(OpKind::SAdd, kDst, kDst, step);
        countDown_ = scalar(OpKind::SAdd, kLeft, kLeft, -static_cast<double>(p_.vlmax));
    }

protected:
    bool refill(std::vector<Op>& out) override {
        if (!started_) {
            started_ = true;
            prologue(out);
            return true;
        }
        if (pass_ == p_.repeat) {
            if (done_)
                return false;
            done_ = true;
            if (p_.threads.size() > 1)
                out.push_back(
                    control(OpKind::Barrier, kJoinBarrier, static_cast<std::uint32_t>(p_.threads.size())));
            return !out.empty();
        }
        // Up to 64 iterations per chunk: the stream never holds the whole loop.
        for (unsigned i = 0; i < 64 && pass_ < p_.repeat; ++i)
            iteration(out);
        return true;
    }

private:
    void prologue(std::vector<Op>& out) {
        if (p_.threads.size() > 1) {
            out.push_back(thread_ == 0 ? control(OpKind::Fork, kForkEvent, 0)
                                       : control(OpKind::Join, kForkEvent, 1));
        }
        beginPass(out);
    }

    // Pointers at the slice's start and the count of its elements the loop runs down. A pass is a
    // call of memcpy/memset, as the board times them: memset splats its byte at each call
    // (`vsetvli t0, zero, e8, m<L>; vmv.v.x`: no vector register outlives a call), as
    // tests/riscv/programs/memory_rvv.c's set_rvv does.
    void beginPass(std::vector<Op>& out) {
        next_ = 0;
        chunk_ = 0;
        if (!p_.copies() && !p_.onlyReads()) {
            out.push_back(vsetvl(p_.vlmax));
            Op splat = vectorOp(OpKind::Broadcast, p_.vlmax);
            splat.lmul8 = group();
            splat.dst = kDataReg;
            splat.imm = p_.splat();
            out.push_back(splat);
        }
        const std::uint64_t first = slice_.first * p_.elementBytes;
        if (p_.copies())
            out.push_back(scalar(OpKind::SAdd, kSrc, kZero, static_cast<double>(p_.src + first)));
        out.push_back(scalar(OpKind::SAdd, kDst, kZero, static_cast<double>(p_.dst + first)));
        out.push_back(scalar(OpKind::SAdd, kLeft, kZero, static_cast<double>(slice_.count)));
    }

    void iteration(std::vector<Op>& out) {
        if (slice_.count == 0) {
            endPass(out);
            return;
        }
        const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.vlmax, slice_.count - next_));
        const std::uint64_t offset = (slice_.first + next_) * p_.elementBytes;
        // The strip-mined loop (`vsetvli t0, a2, e8, m8; vle8; sub a2, a2, t0; add; vse8; add;
        // bnez a2`): vsetvl every iteration, as the board's loops and compilers do. The body
        // comes from templates made once: a stream of millions of iterations spends its time
        // copying ops, not building them.
        const std::size_t at = out.size();
        out.push_back(setVl_);
        if (p_.copies()) {
            out.push_back(load_);
            out.push_back(countDown_);
            out.push_back(advanceSrc_);
            out.push_back(store_);
            out[at + 1].addr = p_.src + offset;
        } else if (p_.onlyReads()) {
            // Software-pipelined as bw_mem's read loop sums what it reads: this iteration's load,
            // then the previous one's add, so an in-order core does not wait for each load.
            out.push_back(load_);
            out.back().dst = dataGroup(chunk_);
            out.push_back(countDown_);
            if (chunk_ > 0)
                out.push_back(accumulate(chunk_ - 1, p_.vlmax));
        } else {
            out.push_back(store_);
            out.push_back(countDown_);
        }
        out.push_back(advanceDst_);
        Op& access = out[p_.copies() ? at + 4 : at + 1];  // the store, memread's load
        access.addr = p_.dst + offset;
        if (vl < p_.vlmax) {  // the short tail
            const double step = static_cast<double>(std::uint64_t{vl} * p_.elementBytes);
            for (std::size_t i = at; i < out.size(); ++i) {
                const OpKind k = out[i].kind;
                if (k == OpKind::VSetVl || k == OpKind::VLoad || k == OpKind::VStore)
                    out[i].vl = vl;
                else if (k == OpKind::SAdd)
                    out[i].imm = out[i].dst == kLeft ? -static_cast<double>(vl) : step;
            }
        }
        next_ += vl;
        ++chunk_;
        lastVl_ = vl;
        const bool more = next_ < slice_.count;
        out.push_back(branchOp(kScalar, kLeft, more));  // bnez: the count left
        if (!more) {
            // The loop's exit: predicted taken as every iteration before it, it falls through,
            // and the core pays its mispredict penalty once per pass (a predictor is not
            // assumed to count the iterations). Calibrated against the board's 1 KB points:
            // docs/targets/k1.md.
            out.back().flags |= Op::kMispredicted;
            endPass(out);
        }
    }

    // The outer loop over passes: a counter, a compare and its back-edge.
    void endPass(std::vector<Op>& out) {
        if (p_.onlyReads() && chunk_ > 0)
            out.push_back(accumulate(chunk_ - 1, lastVl_));
        ++pass_;
        out.push_back(scalar(OpKind::SAdd, kPass, kPass, 1.0));
        out.push_back(scalar(OpKind::SCompare, kFlag, kPass, static_cast<double>(p_.repeat)));
        out.push_back(branch(pass_ < p_.repeat));
        if (pass_ < p_.repeat)
            beginPass(out);
    }

    // memread: loads alternate between two register groups, each summed into its own accumulator.
    std::uint8_t dataGroup(std::uint64_t chunk) const {
        return static_cast<std::uint8_t>(chunk % 2 * p_.lmul);
    }
    Op accumulate(std::uint64_t chunk, std::uint32_t vl) const {
        Op op = vectorOp(OpKind::Add, vl);
        op.lmul8 = group();
        const auto acc = static_cast<std::uint8_t>(2 * p_.lmul + dataGroup(chunk));
        op.dst = acc;
        op.src[0] = acc;
        op.src[1] = dataGroup(chunk);
        return op;
    }

    std::uint8_t group() const { return static_cast<std::uint8_t>(8 * p_.lmul); }
    Op vectorOp(OpKind kind, std::uint32_t vl) const { return tessim::vectorOp(kind, p_.element, vl); }
    Op vsetvl(std::uint32_t avl) const { return vsetvlOp(p_.element, avl, kVl, p_.lmul); }
    static Op scalar(OpKind kind, std::uint8_t dst, std::uint8_t src, double imm) {
        return scalarOp(kind, kScalar, dst, src, imm);
    }
    static Op branch(bool taken) { return branchOp(kScalar, kFlag, taken); }
    static Op control(OpKind kind, std::uint32_t tag, std::uint32_t count) {
        return syncOp(kind, tag, count);
    }

    const MemoryStreamParams p_;
    Op setVl_, load_, store_, advanceSrc_, advanceDst_, countDown_;  // the loop body's ops, addresses aside
    unsigned thread_;
    ThreadSlice slice_;
    bool started_ = false;
    bool done_ = false;
    unsigned pass_ = 0;
    std::uint64_t next_ = 0;   // elements of the slice done in this pass
    std::uint64_t chunk_ = 0;  // vector ops of the slice done in this pass
    std::uint32_t lastVl_ = 0;
};

class MemoryStreamKernel : public ConfiguredWorkload {
public:
    explicit MemoryStreamKernel(MemoryStreamParams p) : p_(std::move(p)) {}

    void derivePlan(nlohmann::ordered_json& j) const override {
        echoThreadSlices(j, p_.threads, "first_byte", "bytes", p_.elementBytes);  // slices of elements
        j["memory"] = p_.memory->name;
        j["sew"] = 8 * p_.elementBytes;
        j["vector_length"] = p_.vlmax;
        if (p_.copies())
            j["src"] = p_.src;
        j["dst"] = p_.dst;
    }
    std::vector<EngineStream> streams() override { return streamPerSlice<MemoryStream>(p_, p_.threads); }
    // Every source byte passes the memory the ops address once at least (through a cache, the
    // levels behind it may keep or not see them: written lines can stay dirty when the run ends).
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        return {{p_.memory->level, p_.copies() ? 2 * p_.bytes : p_.bytes}};
    }
    // memcpy and memset write their destination once; memread writes nothing.
    std::map<std::string, std::uint64_t> compulsoryWriteBytes() const override {
        return {{p_.memory->level, p_.onlyReads() ? 0 : p_.bytes}};
    }
    // The source (memcpy) or the buffer (memread) comes from main memory once; memset reads nothing.
    std::uint64_t coldReadBytes() const override { return p_.copies() || p_.onlyReads() ? p_.bytes : 0; }
    void initialise(FunctionalMemory& memory) override {
        std::vector<std::uint8_t> buf(p_.bytes);
        if (p_.onlyReads())
            return;  // nothing is written, nothing to check
        if (p_.copies()) {
            for (std::uint64_t i = 0; i < p_.bytes; ++i)
                buf[i] = sourceByte(i);
            memory.write(p_.memory->id, p_.src, buf.data(), buf.size());
        }
        // The destination holds other bytes first, so a copy or fill that misses a byte shows.
        for (std::uint64_t i = 0; i < p_.bytes; ++i)
            buf[i] = static_cast<std::uint8_t>(~expected(i));
        memory.write(p_.memory->id, p_.dst, buf.data(), buf.size());
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        if (p_.onlyReads())
            return c;
        c.checked = true;
        std::vector<std::uint8_t> buf(p_.bytes);
        memory.read(p_.memory->id, p_.dst, buf.data(), buf.size());
        for (std::uint64_t i = 0; i < p_.bytes; ++i) {
            if (c.countOutput(buf[i], expected(i), buf[i] != expected(i))) {
                c.firstMismatch =
                    fmt::format("byte {}: simulated {:#04x} reference {:#04x}", i, buf[i], expected(i));
                c.locateFirstMismatch(p_.memory->id, p_.dst + i);
            }
        }
        return c;
    }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        auto& node = stats.child("workload");
        const std::uint64_t bytes = p_.bytes * p_.repeat;
        node.add("bytes", bytes, "B",
                 p_.copies()      ? "bytes copied, all passes"
                 : p_.onlyReads() ? "bytes read, all passes"
                                  : "bytes set, all passes");
        node.add("bytes_per_cycle", cycles ? static_cast<double>(bytes) / static_cast<double>(cycles) : 0.0,
                 "B/cycle", "bytes per cycle of the main clock");
        node.add("bandwidth", seconds > 0 ? static_cast<double>(bytes) / seconds : 0.0, "B/s",
                 "bytes per second");
    }

private:
    std::uint8_t sourceByte(std::uint64_t i) const {
        return static_cast<std::uint8_t>(testDataBits(i, 0x3E3C) & 0xFF);
    }
    std::uint8_t expected(std::uint64_t i) const { return p_.copies() ? sourceByte(i) : p_.value; }

    MemoryStreamParams p_;
};

}  // namespace

std::unique_ptr<Workload> makeMemoryStreamKernel(const std::string& kernel, const config::Node& workload,
                                                 const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    MemoryStreamParams p;
    p.kernel = kernel;
    Reader w = workloadReader(workload);
    // At most 512 MiB: both buffers' addresses stay 32-bit integers in the loop's registers.
    p.bytes = w.get<Bytes>("bytes", Range<Bytes>{Bytes{1}, Bytes{std::uint64_t{1} << 29}}).value;
    p.repeat = w.get<unsigned>("repeat", 1u, Range<unsigned>{1, 1u << 20});
    if (kernel == "memset")
        p.value = static_cast<std::uint8_t>(w.get<unsigned>("value", 0u, Range<unsigned>{0, 255}));
    // The destination's start minus the source's (memcpy): by default the next page after the
    // source, so the two buffers' relation in the DDR's banks moves with the size.
    const std::uint64_t sourceBytes = alignUp(p.bytes, kPage);
    std::uint64_t distance = sourceBytes;
    if (kernel == "memcpy" && w.has("distance")) {
        distance = w.get<Bytes>("distance", Range<Bytes>{Bytes{1}, Bytes{std::uint64_t{1} << 31}}).value;
        if (distance % kPage != 0 || distance < sourceBytes)
            w.fail("distance",
                   fmt::format("the destination must start on a {} B page at or after the source's "
                               "end: a multiple of {} B of at least {} B",
                               kPage, kPage, sourceBytes));
    }
    w.finish();

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    const std::vector<const EngineInfo*> engines = planEngines(pl, target, "threads");
    p.lmul = pl.get<unsigned>("lmul", 8u, Range<unsigned>{1, 8});
    if ((p.lmul & (p.lmul - 1)) != 0)
        pl.fail("lmul", fmt::format("LMUL is 1, 2, 4 or 8, not {}", p.lmul));
    // The element width (SEW). memcpy and memset move bytes, as the board's `vsetvli e8` loops
    // do: 8 by default, so any length is taken; memread sums 32-bit words (as bw_mem's rd).
    const unsigned sew = pl.get<unsigned>("sew", kernel == "memread" ? 32u : 8u, Range<unsigned>{8, 32});
    if (sew != 8 && sew != 16 && sew != 32)
        pl.fail("sew", fmt::format("SEW is 8, 16 or 32 bits, not {}", sew));
    p.elementBytes = sew / 8;
    p.element = sew == 8 ? DType::I8 : sew == 16 ? DType::I16 : DType::I32;
    if (p.bytes % p.elementBytes != 0)
        w.fail("bytes", fmt::format("{} B is not a whole number of {}-bit elements (a multiple of {} B; "
                                    "plan.sew: 8 takes any number of bytes)",
                                    p.bytes, sew, p.elementBytes));
    p.memory = &planMemory(pl, target, *engines[0]);
    pl.finish();
    for (const EngineInfo* e : engines)
        if (e->registerBytes != engines[0]->registerBytes)
            pl.fail("threads",
                    fmt::format("engines {} and {} have different register sizes ({} B, {} B)",
                                engines[0]->name, e->name, engines[0]->registerBytes, e->registerBytes));
    p.vlmax = std::max(1u, engines[0]->registerBytes * p.lmul / p.elementBytes);
    // Contiguous slices of whole vectors, one per thread, at distinct addresses of the one
    // memory every core reaches through its caches.
    const auto slices = contiguousSlices(p.bytes / p.elementBytes, engines.size(), p.vlmax);
    for (std::size_t i = 0; i < engines.size(); ++i)
        p.threads.push_back(ThreadSlice{engines[i]->name, slices[i].first, slices[i].count});
    MemoryLayout layout(*p.memory, kPage);
    if (p.copies()) {
        p.src = layout.allocate("source", p.bytes);
        if (distance > sourceBytes)
            layout.allocate("space between the buffers", distance - sourceBytes);
    }
    p.dst = layout.allocate("destination", p.bytes);
    layout.requireFits(w, "bytes", fmt::format("{} of {} B", kernel, p.bytes));
    auto k = std::make_unique<MemoryStreamKernel>(std::move(p));
    k->echoFrom(w, pl);
    return k;
}

}  // namespace tessim
