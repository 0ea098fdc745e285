#include "workloads/vector/StreamingVectorKernel.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/engine/ElementArithmetic.h"
#include "sim/workload/PlanEngine.h"

namespace tessim {
namespace {

struct StreamingParams {
    std::string kernel;
    std::uint64_t n = 0;
    DType dtype = DType::F32;
    double alpha = 2.0;
    std::string engine;
    const MemorySpaceInfo* memory = nullptr;
    unsigned unroll = 8;
    unsigned lmul = 1;
    std::uint32_t vl = 0;  // elements per vector op
    std::uint64_t xAddr = 0, yAddr = 0, outAddr = 0;
};

// Deterministic inputs in [-1, 1) (integers: −8..7), identical on every run and machine.
double inputValue(DType t, std::uint64_t i, std::uint64_t salt) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ULL ^ salt;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    if (t == DType::F32 || t == DType::F64)
        return roundTo(t, static_cast<double>(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    return static_cast<double>(static_cast<std::int64_t>(z % 16) - 8);
}

class StreamingStream : public ChunkedOpStream {
public:
    explicit StreamingStream(const StreamingParams& p) : p_(p) {}

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
        if (next_ >= p_.n) {
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
        for (unsigned u = 0; u < p_.unroll && next_ < p_.n; ++u, ++blocks) {
            vls[u] = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.vl, p_.n - next_));
            next_ += vls[u];
        }
        std::uint64_t offset = start;
        for (unsigned u = 0; u < blocks; ++u) {
            out.push_back(load(xReg(u), p_.xAddr + offset * elem, vls[u]));
            out.push_back(load(yReg(u), p_.yAddr + offset * elem, vls[u]));
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
                Op st = vectorOp(OpKind::VStore, vls[u]);
                st.src[0] = yReg(u);
                st.space = p_.memory->id;
                st.addr = p_.yAddr + offset * elem;
                out.push_back(st);
                offset += vls[u];
            }
        }
        return true;
    }

private:
    static constexpr std::uint8_t kAlphaReg = 0;
    std::uint8_t accReg(unsigned u) const { return static_cast<std::uint8_t>(1 + u); }
    std::uint8_t xReg(unsigned u) const { return static_cast<std::uint8_t>(17 + u); }
    std::uint8_t yReg(unsigned u) const { return static_cast<std::uint8_t>(33 + u); }

    Op vectorOp(OpKind kind, std::uint32_t vl) const {
        Op op;
        op.kind = kind;
        op.dtype = p_.dtype;
        op.vl = vl;
        return op;
    }
    Op broadcast(std::uint8_t reg, double value) const {
        Op op = vectorOp(OpKind::Broadcast, p_.vl);
        op.dst = reg;
        op.imm = value;
        return op;
    }
    Op load(std::uint8_t reg, std::uint64_t addr, std::uint32_t vl) const {
        Op op = vectorOp(OpKind::VLoad, vl);
        op.dst = reg;
        op.space = p_.memory->id;
        op.addr = addr;
        return op;
    }
    void finishDot(std::vector<Op>& out) const {
        for (unsigned u = 1; u < p_.unroll; ++u) {
            Op add = vectorOp(OpKind::Add, p_.vl);
            add.dst = accReg(0);
            add.src[0] = accReg(0);
            add.src[1] = accReg(u);
            out.push_back(add);
        }
        Op red = vectorOp(OpKind::Reduce, p_.vl);
        red.dst = accReg(0);
        red.src[0] = accReg(0);
        out.push_back(red);
        Op st = vectorOp(OpKind::VStore, 1);
        st.src[0] = accReg(0);
        st.space = p_.memory->id;
        st.addr = p_.outAddr;
        out.push_back(st);
    }

    StreamingParams p_;
    bool started_ = false;
    bool done_ = false;
    std::uint64_t next_ = 0;
    std::uint64_t block_ = 0;
};

class StreamingVectorKernel : public Workload {
public:
    explicit StreamingVectorKernel(StreamingParams p) : p_(std::move(p)) {}

    nlohmann::ordered_json resolvedWorkload() const override {
        nlohmann::ordered_json j;
        j["kernel"] = p_.kernel;
        j["n"] = p_.n;
        j["dtype"] = std::string(dtypeName(p_.dtype));
        if (p_.kernel == "axpy")
            j["alpha"] = p_.alpha;
        return j;
    }
    nlohmann::ordered_json resolvedPlan() const override {
        nlohmann::ordered_json j;
        j["engine"] = p_.engine;
        j["memory"] = p_.memory->name;
        j["unroll"] = p_.unroll;
        j["lmul"] = p_.lmul;
        j["vector_length"] = p_.vl;
        return j;
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> s;
        s.push_back(EngineStream{p_.engine, std::make_unique<StreamingStream>(p_)});
        return s;
    }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        std::uint64_t elem = dtypeBytes(p_.dtype);
        std::uint64_t bytes = p_.kernel == "axpy" ? 3 * p_.n * elem : 2 * p_.n * elem + elem;
        return {{p_.memory->level, bytes}};
    }
    void initialise(FunctionalMemory& memory) override {
        const unsigned elem = dtypeBytes(p_.dtype);
        std::vector<std::uint8_t> buf(p_.n * elem);
        for (int which = 0; which < 2; ++which) {
            for (std::uint64_t i = 0; i < p_.n; ++i)
                encodeElement(p_.dtype, inputValue(p_.dtype, i, which), buf.data() + i * elem);
            memory.write(p_.memory->id, which == 0 ? p_.xAddr : p_.yAddr, buf.data(), buf.size());
        }
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        const unsigned elem = dtypeBytes(p_.dtype);
        auto x = [&](std::uint64_t i) { return inputValue(p_.dtype, i, 0); };
        auto y = [&](std::uint64_t i) { return inputValue(p_.dtype, i, 1); };
        auto compare = [&](std::uint64_t index, double got, double want) {
            ++c.elements;
            double err = std::fabs(got - want);
            c.maxAbsError = std::max(c.maxAbsError, err);
            if (got != want && !(std::isnan(got) && std::isnan(want))) {
                if (c.mismatches++ == 0)
                    c.firstMismatch = fmt::format("element {}: simulated {} reference {}", index, got, want);
            }
        };
        if (p_.kernel == "axpy") {
            std::vector<std::uint8_t> buf(p_.n * elem);
            memory.read(p_.memory->id, p_.yAddr, buf.data(), buf.size());
            for (std::uint64_t i = 0; i < p_.n; ++i)
                compare(i, decodeElement(p_.dtype, buf.data() + i * elem),
                        fmaIn(p_.dtype, p_.alpha, x(i), y(i)));
        } else {
            // The reference accumulates in the same order as the schedule: per-lane partial sums
            // in `unroll` accumulators, then accumulators added, then lanes summed in order.
            std::vector<std::vector<double>> acc(p_.unroll, std::vector<double>(p_.vl, 0.0));
            std::uint64_t block = 0;
            for (std::uint64_t start = 0; start < p_.n; start += p_.vl, ++block) {
                auto& a = acc[block % p_.unroll];
                for (std::uint64_t l = 0; l < p_.vl && start + l < p_.n; ++l)
                    a[l] = fmaIn(p_.dtype, x(start + l), y(start + l), a[l]);
            }
            for (unsigned u = 1; u < p_.unroll; ++u)
                for (std::uint32_t l = 0; l < p_.vl; ++l)
                    acc[0][l] = addIn(p_.dtype, acc[0][l], acc[u][l]);
            double sum = 0.0;
            for (std::uint32_t l = 0; l < p_.vl; ++l)
                sum = addIn(p_.dtype, sum, acc[0][l]);
            std::vector<std::uint8_t> buf(elem);
            memory.read(p_.memory->id, p_.outAddr, buf.data(), elem);
            compare(0, decodeElement(p_.dtype, buf.data()), sum);
        }
        return c;
    }

private:
    StreamingParams p_;
};

}  // namespace

std::unique_ptr<Workload> makeStreamingVectorKernel(const std::string& kernel, const config::Node& workload,
                                                    const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    StreamingParams p;
    p.kernel = kernel;
    Reader w(workload);
    w.get<std::string>("kernel");
    w.get<std::string>("name", std::string());
    w.get<std::string>("description", std::string());
    p.n = w.get<std::uint64_t>("n", Range<std::uint64_t>{1, std::uint64_t{1} << 34});
    std::string dtype = w.oneOf("dtype", {"i8", "i16", "i32", "f32", "f64"}, std::string("f32"));
    parseDType(dtype, p.dtype);
    if (kernel == "axpy")
        p.alpha = w.get<double>("alpha", 2.0);
    w.finish();

    Node planNode = plan.isNull() ? Node::makeMap(plan.location()) : plan;
    Reader pl(planNode);
    pl.get<std::string>("name", std::string());
    pl.get<std::string>("description", std::string());
    const EngineInfo* engine = &planEngine(pl, target);
    p.engine = engine->name;
    if (pl.has("memory")) {
        std::string mem = pl.get<std::string>("memory");
        p.memory = target.findSpace(mem);
        if (!p.memory)
            pl.fail("memory", "target '" + target.name + "' has no memory '" + mem + "'");
    } else {
        // Default: the largest memory, where a long vector naturally lives.
        for (const auto& s : target.spaces)
            if (!p.memory || s.size > p.memory->size)
                p.memory = &s;
    }
    p.unroll = pl.get<unsigned>("unroll", 8u, Range<unsigned>{1, 16});
    p.lmul = pl.get<unsigned>("lmul", 1u, Range<unsigned>{1, 8});
    pl.finish();
    const unsigned elem = dtypeBytes(p.dtype);
    p.vl = std::max(1u, engine->registerBytes * p.lmul / elem);
    auto align = [](std::uint64_t v) { return (v + 63) / 64 * 64; };
    p.xAddr = 0;
    p.yAddr = align(p.n * elem);
    p.outAddr = p.yAddr + align(p.n * elem);
    std::uint64_t need = p.outAddr + 64;
    if (need > p.memory->size)
        w.fail("n", fmt::format("{} elements of {} need {} B in memory '{}', which holds {} B", p.n, dtype,
                                need, p.memory->name, p.memory->size));
    return std::make_unique<StreamingVectorKernel>(std::move(p));
}

}  // namespace tessim
