#include "workloads/tt/TensorTrainKernel.h"
#include "workloads/common/FlopStats.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/stats/StatsTree.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/PlanMemory.h"
#include "workloads/common/Slices.h"
#include "workloads/common/TestData.h"
#include "workloads/conv/ConvShapeReader.h"
#include "workloads/conv/RvvIm2colRows.h"
#include "workloads/tt/TensorTrainShape.h"
#include "workloads/tt/TtSchedule.h"
#include "workloads/tt/TtStream.h"

// Why the chain runs the last core first: x[b][i_0 … i_{d−1}] then has the contracted index
// (i_{d−1}, r_d) innermost, and each einsum writes its output mode outermost and its kept rank
// innermost, which is exactly the next einsum's input with (i_c, r_{c+1}) innermost. No reshape
// moves a byte; the final output comes out as y[o][b] (out-major).

namespace tessim {
namespace {

using namespace tt;

// Arrays start on page boundaries, as an allocator hands out large buffers.
constexpr std::uint64_t kCorePage = 4096;

// Functional data: small integers, so every sum is exact in f32 for test-sized layers and any
// summation order gives the dense result.
double inputValue(std::uint64_t i) {
    return static_cast<double>(static_cast<std::int64_t>(testDataBits(i, 11) % 5) - 2);
}
double coreValue(unsigned c, std::uint64_t i) {
    return static_cast<double>(static_cast<std::int64_t>(testDataBits(i, 100 + c) % 3) - 1);
}

class TensorTrainKernel : public ConfiguredWorkload {
public:
    explicit TensorTrainKernel(TtParams p) : p_(std::move(p)) {}

    void deriveWorkload(nlohmann::ordered_json& j) const override {
        j["in"] = p_.inSize();
        j["out"] = p_.outSize();
        j["weight_dtype"] = std::string(dtypeName(p_.coreType));
        j[ring() ? "tr" : "tt"] = {{"in", p_.shape.in}, {"out", p_.shape.out}, {"ranks", p_.storedRanks()}};
        j["parameters"] = p_.parameters();
        j["dense_parameters"] = p_.inSize() * p_.outSize();
        j["flops"] = p_.shape.flops(p_.batch) * p_.ringRank;
        j["dense_flops"] = 2 * p_.batch * p_.inSize() * p_.outSize();
        if (p_.im2col) {
            const ConvShape& c = *p_.im2col;
            nlohmann::ordered_json conv{{"h", c.h}, {"w", c.w}, {"channels", c.channels}};
            writePerAxis(conv, "k", "kh", "kw", c.kh, c.kw);
            writeStride(conv, c);
            writePerAxis(conv, "pad", "pad_h", "pad_w", c.padH, c.padW);
            conv["out_h"] = c.outH();
            conv["out_w"] = c.outW();
            conv["column_bytes"] = p_.batch * p_.inSize() * kElem;
            j["im2col"] = conv;
        }
    }
    void derivePlan(nlohmann::ordered_json& j) const override {
        j["threads"] = p_.engines.size();
        j["engines"] = p_.engines;
        j["vector_length"] = p_.vectorLength;
        j["block_registers"] = ttBlockRegisters(p_.rm, p_.rb, p_.rr, p_.rk) + stagingRegisters(p_);
        j["memory"] = p_.memory->name;
        nlohmann::ordered_json einsums = nlohmann::ordered_json::array();
        for (const auto& e : p_.einsums)
            einsums.push_back(einsumJson(e));
        j["einsums"] = einsums;
        if (p_.im2col)
            j["image"] = p_.imageAddr;
        j["x"] = p_.xAddr;
        j["y"] = p_.yAddr;
    }
    std::vector<EngineStream> streams() override { return ttStreams(p_); }
    // x (a convolution's input image) and the cores read once, y written once; from DDR, x and the
    // cores at least once.
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        const std::uint64_t x = p_.im2col ? std::uint64_t{p_.im2col->h} * p_.im2col->w * p_.im2col->channels
                                          : p_.batch * p_.inSize();
        const std::uint64_t inputs = x * kElem + p_.parameters() * p_.coreElem();
        std::map<std::string, std::uint64_t> bytes{
            {p_.memory->level, inputs + p_.batch * p_.outSize() * kElem}};
        if (p_.ddr && p_.ddr->level != p_.memory->level)
            bytes[p_.ddr->level] = inputs;
        return bytes;
    }
    std::map<std::string, std::uint64_t> compulsoryWriteBytes() const override {
        return {{p_.memory->level, p_.batch * p_.outSize() * kElem}};
    }
    bool multiLayer() const override { return true; }
    nlohmann::ordered_json layers() const override {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        const std::size_t first = p_.im2col ? 1 : 0;
        if (p_.im2col)
            out.push_back({{"index", 0},
                           {"name", "im2col"},
                           {"mark", 1},
                           {"engine", p_.engines[0]},
                           {"column_bytes", p_.batch * p_.inSize() * kElem}});
        for (std::size_t t = 0; t < p_.einsums.size(); ++t) {
            nlohmann::ordered_json l;
            l["index"] = first + t;
            l["name"] = ring() ? fmt::format("ring{}.einsum{}", t / p_.shape.d(), t % p_.shape.d())
                               : fmt::format("einsum{}", t);
            l["mark"] = first + t + 1;
            l["engine"] = p_.engines[0];
            const nlohmann::ordered_json e = einsumJson(p_.einsums[t]);
            for (auto it = e.begin(); it != e.end(); ++it)
                l[it.key()] = it.value();
            out.push_back(l);
        }
        return out;
    }
    void initialise(FunctionalMemory& memory) override {
        if (p_.im2col) {
            // The image; the column matrix holds another value first, so a row the im2col misses shows.
            const ConvShape& c = *p_.im2col;
            std::vector<double> image(std::uint64_t{c.h} * c.w * c.channels);
            for (std::uint64_t i = 0; i < image.size(); ++i)
                image[i] = inputValue(i);
            write(memory, p_.imageAddr, image);
            write(memory, p_.xAddr, std::vector<double>(p_.batch * p_.inSize(), 1000.0));
        } else {
            write(memory, p_.xAddr, inputs());
        }
        for (const auto& e : p_.einsums) {
            std::vector<double> g(e.e.coreElements());
            for (std::uint64_t r = 0; r < e.e.r; ++r)
                for (std::uint64_t n = 0; n < e.e.n; ++n)
                    for (std::uint64_t m = 0; m < e.e.m; ++m)
                        for (std::uint64_t j = 0; j < e.e.r1; ++j)
                            g[e.coreIndex(m, r, n * e.e.r1 + j)] =
                                coreValue(e.e.core, e.storedIndex(r, n, m, j));
            write(memory, e.coreAddr, g, p_.coreType);
        }
        // Outputs hold another value first, so an element the schedule misses shows.
        write(memory, p_.yAddr, std::vector<double>(p_.batch * p_.outSize(), 1000.0));
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        const std::uint64_t count = p_.batch * p_.outSize();
        std::vector<std::uint8_t> buf(count * kElem);
        memory.read(p_.memory->id, p_.yAddr, buf.data(), buf.size());
        const std::vector<double> want = reference();
        for (std::uint64_t o = 0; o < p_.outSize(); ++o)
            for (std::uint64_t b = 0; b < p_.batch; ++b) {
                const double got = decodeElement(kData, buf.data() + (o * p_.batch + b) * kElem);
                const double w = want[o * p_.batch + b];
                // Exact while the integer sums stay below 2^24; beyond, f32 rounding.
                if (c.countOutput(got, w, std::fabs(got - w) > 1e-6 * std::max(1.0, std::fabs(w)))) {
                    c.firstMismatch = fmt::format("y[{}][{}]: simulated {} dense layer {}", o, b, got, w);
                    c.locateFirstMismatch(p_.memory->id, p_.yAddr + (o * p_.batch + b) * kElem);
                }
            }
        return c;
    }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        addFlopStats(stats, p_.flops(), "2 · m · b · r · n · r1 summed over the einsums, all passes", cycles,
                     seconds);
        auto& node = stats.child("workload");
        node.add("parameters", p_.parameters(), "elements",
                 ring() ? "elements of the TR cores" : "elements of the TT cores");
        node.add("dense_parameters", p_.inSize() * p_.outSize(), "elements", "elements of the dense W");
    }

private:
    bool ring() const { return p_.ringRank > 1; }

    // x[b][i]: the test data, or a convolution's column matrix of the test image (rows [ky][kx][c],
    // zeros over the padding).
    std::vector<double> inputs() const {
        std::vector<double> x(p_.batch * p_.inSize(), 0.0);
        if (!p_.im2col) {
            for (std::uint64_t i = 0; i < x.size(); ++i)
                x[i] = inputValue(i);
            return x;
        }
        const ConvShape& c = *p_.im2col;
        for (std::uint64_t b = 0; b < p_.batch; ++b)
            forEachInputTap(c, b, [&](std::uint64_t pixel, std::uint64_t tap) {
                for (std::uint64_t ch = 0; ch < c.channels; ++ch)
                    x[b * p_.inSize() + tap * c.channels + ch] = inputValue(pixel * c.channels + ch);
            });
        return x;
    }

    nlohmann::ordered_json einsumJson(const EinsumPlan& e) const {
        nlohmann::ordered_json j;
        j["core"] = e.e.core;
        j["m"] = e.e.m;
        j["b"] = e.e.b;
        j["r"] = e.e.r;
        j["n"] = e.e.n;
        j["r1"] = e.e.r1;
        j["flops"] = e.e.flops();
        j["vectorise"] = dimName(e.vec);
        j["vector_length"] = e.vlmax;
        j["held"] = e.holdInputs ? "input" : "core";
        j["tile_b"] = e.tile;
        j["threads"] = e.threads;
        j["split"] = dimName(e.split);
        j["input"] = e.inAddr;
        j["core_at"] = e.coreAddr;
        j["output"] = e.outAddr;
        if (ring()) {
            j["ring_index"] = e.ringSlice;
            j["accumulate"] = e.accumulate;
        }
        return j;
    }

    void write(FunctionalMemory& memory, std::uint64_t addr, const std::vector<double>& values,
               DType type = kData) const {
        const unsigned elem = dtypeBytes(type);
        std::vector<std::uint8_t> buf(values.size() * elem);
        for (std::size_t i = 0; i < values.size(); ++i)
            encodeElement(type, values[i], buf.data() + i * elem);
        memory.write(p_.memory->id, addr, buf.data(), buf.size());
    }

    // y[o][b] = Σ_i x[b][i] · W[o][i], with W rebuilt dense from the cores when it is small, else
    // the chain evaluated in double (the same sums in another order). A ring's W is the trace over
    // its ring index: P carries the open r_0 index a beside the running rank.
    std::vector<double> reference() const {
        const TtShape& s = p_.shape;
        const unsigned d = s.d();
        const std::vector<std::uint64_t> ranks = p_.storedRanks();
        const std::uint64_t R = p_.ringRank;
        const std::uint64_t in = p_.inSize(), outSize = p_.outSize();
        std::vector<double> y(outSize * p_.batch, 0.0);
        const std::vector<double> x = inputs();
        std::uint64_t maxRank = 1;
        for (auto r : ranks)
            maxRank = std::max(maxRank, r);
        if (in * outSize * maxRank * R <= (std::uint64_t{1} << 22)) {
            // P[(i_0..i_c)][(j_0..j_c)][a][r_{c+1}], grown one core at a time from P[a][r] = δ(a, r).
            std::vector<double> P(R * R, 0.0);
            for (std::uint64_t a = 0; a < R; ++a)
                P[a * R + a] = 1.0;
            std::uint64_t ni = 1, nj = 1;
            for (unsigned c = 0; c < d; ++c) {
                const std::uint64_t n = s.in[c], m = s.out[c], r0 = ranks[c], r1 = ranks[c + 1];
                std::vector<double> next(ni * n * nj * m * R * r1, 0.0);
                for (std::uint64_t i = 0; i < ni; ++i)
                    for (std::uint64_t j = 0; j < nj; ++j)
                        for (std::uint64_t a0 = 0; a0 < R; ++a0)
                            for (std::uint64_t a = 0; a < r0; ++a) {
                                const double pv = P[((i * nj + j) * R + a0) * r0 + a];
                                if (pv == 0.0)
                                    continue;
                                for (std::uint64_t ii = 0; ii < n; ++ii)
                                    for (std::uint64_t jj = 0; jj < m; ++jj)
                                        for (std::uint64_t bb = 0; bb < r1; ++bb)
                                            next[((((i * n + ii) * nj * m) + j * m + jj) * R + a0) * r1 +
                                                 bb] += pv * coreValue(c, ((a * n + ii) * m + jj) * r1 + bb);
                            }
                P = std::move(next);
                ni *= n;
                nj *= m;
            }
            for (std::uint64_t o = 0; o < outSize; ++o)
                for (std::uint64_t b = 0; b < p_.batch; ++b) {
                    double sum = 0.0;
                    for (std::uint64_t i = 0; i < in; ++i) {
                        double w = 0.0;
                        for (std::uint64_t a = 0; a < R; ++a)
                            w += P[((i * outSize + o) * R + a) * R + a];
                        sum += x[b * in + i] * w;
                    }
                    y[o * p_.batch + b] = sum;
                }
            return y;
        }
        std::vector<double> cur;
        for (std::size_t t = 0; t < p_.einsums.size(); ++t) {
            const EinsumPlan& e = p_.einsums[t];
            const std::vector<double>& input = t % d == 0 ? x : cur;
            std::vector<double> next(e.e.outputElements(), 0.0);
            for (std::uint64_t m = 0; m < e.e.m; ++m)
                for (std::uint64_t b = 0; b < e.e.b; ++b)
                    for (std::uint64_t r = 0; r < e.e.r; ++r) {
                        double sum = 0.0;
                        for (std::uint64_t n = 0; n < e.e.n; ++n)
                            for (std::uint64_t j = 0; j < e.e.r1; ++j)
                                sum += coreValue(e.e.core, e.storedIndex(r, n, m, j)) *
                                       input[b * e.e.k() + n * e.e.r1 + j];
                        next[e.outputIndex(m, b, r)] = sum;
                    }
            if (t % d + 1 < d) {
                cur = std::move(next);
                continue;
            }
            for (std::size_t i = 0; i < next.size(); ++i)
                y[i] = (e.accumulate ? y[i] : 0.0) + next[i];
        }
        return y;
    }

    TtParams p_;
};

std::vector<std::uint64_t> readCounts(const config::Reader& r, const std::string& key) {
    std::vector<std::uint64_t> values;
    const config::Node& node = r.node(key);
    if (!node.isSequence())
        r.fail(key, "expected a list of positive integers, e.g. [4, 8, 8]");
    for (const auto& item : node.items()) {
        std::uint64_t v = 0;
        bool ok = item.isScalar() && !item.scalar().empty() &&
                  item.scalar().find_first_not_of("0123456789") == std::string::npos;
        if (ok) {
            try {
                v = std::stoull(item.scalar());
            } catch (const std::exception&) {
                ok = false;
            }
        }
        if (!ok || v == 0 || v > (std::uint64_t{1} << 20))
            throw config::ConfigError(item.location(), r.path().empty() ? key : r.path() + "." + key,
                                      "expected a positive integer up to 2^20 in the list");
        values.push_back(v);
    }
    return values;
}

// The largest b tile (a multiple of rb) whose output, core and input slices fit the ways of the L2:
// T·⌈Bt·r·4/way⌉ + T·⌈r·n·r1·c/way⌉ + ⌈Bt·n·r1·4/way⌉ ≤ assoc, way = L2 size / assoc, c the
// bytes of a core element.
std::uint64_t l2Tile(const TtEinsum& e, unsigned threads, std::uint64_t l2Size, unsigned assoc, unsigned rb,
                     unsigned coreElem) {
    const std::uint64_t way = std::max<std::uint64_t>(1, l2Size / assoc);
    auto ways = [&](std::uint64_t bytes) { return (bytes + way - 1) / way; };
    auto fits = [&](std::uint64_t bt) {
        return threads * ways(bt * e.r * kElem) + threads * ways(e.r * e.k() * coreElem) +
                   ways(bt * e.k() * kElem) <=
               assoc;
    };
    if (fits(e.b))
        return e.b;
    std::uint64_t lo = 1, hi = e.b;  // largest fitting tile by bisection (fits is monotone)
    if (!fits(1))
        return rb;
    while (lo + 1 < hi) {
        const std::uint64_t mid = (lo + hi) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return std::max<std::uint64_t>(rb, lo / rb * rb);
}

}  // namespace

unsigned ttBlockRegisters(unsigned rm, unsigned rb, unsigned rr, unsigned rk) {
    return rm * rb * rr + std::min(rb * rk, rm * rr) + 1;
}

std::unique_ptr<Workload> makeTensorTrainKernel(const std::string& kernel, const config::Node& workload,
                                                const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    (void)kernel;
    TtParams p;
    Reader w = workloadReader(workload);
    p.batch = w.get<std::uint64_t>("batch", 1, Range<std::uint64_t>{1, 1 << 16});
    p.repeat = w.get<unsigned>("repeat", 1u, Range<unsigned>{1, 1u << 20});
    w.oneOf("dtype", {"f32"}, std::string("f32"));
    parseDType(w.oneOf("weight_dtype", {"f32", "f16"}, std::string("f32")), p.coreType);
    // `tr`: a tensor ring, run as ring-rank chains (TtSchedule.h); `tt`: a tensor train.
    const bool ringGiven = w.has("tr");
    if (ringGiven && w.has("tt"))
        w.fail("tr", "give the layer as a tensor train (tt) or a tensor ring (tr), not both");
    Reader tt = w.child(ringGiven ? "tr" : "tt");
    p.shape.in = readCounts(tt, "in");
    p.shape.out = readCounts(tt, "out");
    const unsigned d = p.shape.d();
    if (d < 1 || d > 8)
        tt.fail("in", fmt::format("a TT layer has 1 to 8 cores, not {}", d));
    if (p.shape.out.size() != d)
        tt.fail("out", fmt::format("{} output factors for {} input factors: give one per core",
                                   p.shape.out.size(), d));
    std::vector<std::uint64_t> ranks =
        tt.has("ranks") ? readCounts(tt, "ranks") : std::vector<std::uint64_t>{};
    if (ringGiven) {
        if (ranks.size() == d && d > 0)
            ranks.push_back(ranks.front());
        if (d < 2 || ranks.size() != d + 1 || ranks.front() != ranks.back())
            tt.fail("ranks",
                    fmt::format("a tensor ring of {} cores (at least 2) needs {} ranks r_0 … r_{} (or {} "
                                "with r_d = r_0), not {}",
                                d, d, d - 1, d + 1, listText(ranks)));
        p.ringRank = ranks.front();
        ranks.front() = ranks.back() = 1;
    }
    if (ranks.size() + 1 == d)
        ranks.insert(ranks.begin(), 1);
    if (ranks.size() == d)
        ranks.push_back(1);
    if (ranks.size() != d + 1 || ranks.front() != 1 || ranks.back() != 1)
        tt.fail("ranks", fmt::format("{} cores need {} inner ranks (or {} with the outer 1s), not {}", d,
                                     d - 1, d + 1, tt.has("ranks") ? readCounts(tt, "ranks").size() : 0));
    p.shape.ranks = ranks;
    for (const char* key : {"in", "out"}) {
        if (!w.has(key))
            continue;
        const auto given = w.get<std::uint64_t>(key);
        const std::uint64_t product = std::string(key) == "in" ? p.shape.inSize() : p.shape.outSize();
        if (given != product)
            w.fail(key, fmt::format("{} = {} but the product of tt.{} {} is {}", key, given, key,
                                    listText(std::string(key) == "in" ? p.shape.in : p.shape.out), product));
    }
    // `im2col`: the layer is a convolution's (its TT/TR weight O × C·kh·kw); x is the column matrix
    // the threads build from the h × w × C input image first, one row per output pixel.
    if (w.has("im2col")) {
        Reader c = w.child("im2col");
        ConvShape s;
        s.h = c.get<std::uint32_t>("h", Range<std::uint32_t>{1, 1 << 16});
        s.w = c.get<std::uint32_t>("w", Range<std::uint32_t>{1, 1 << 16});
        s.channels = c.get<std::uint32_t>("channels", Range<std::uint32_t>{1, 65535});
        readWindow(c, s);
        c.finish();
        requireWindowFits(c, s);
        if (std::uint64_t{s.channels} * s.taps() != p.shape.inSize())
            c.fail("channels",
                   fmt::format("a column row of {} channels × {}×{} taps has {} elements, but the "
                               "layer's input factors {} multiply to {}",
                               s.channels, s.kh, s.kw, std::uint64_t{s.channels} * s.taps(),
                               listText(p.shape.in), p.shape.inSize()));
        const std::uint64_t pixels = std::uint64_t{s.outH()} * s.outW();
        if (w.has("batch") && p.batch != pixels)
            w.fail("batch",
                   fmt::format("batch {} but the convolution has {}×{} = {} output pixels (one column "
                               "row each): leave batch out or give {}",
                               p.batch, s.outH(), s.outW(), pixels, pixels));
        if (pixels > (std::uint64_t{1} << 16))
            c.fail("h", fmt::format("{} output pixels: a TT layer takes at most 65536 rows", pixels));
        p.batch = pixels;
        // A 1×1 window of stride 1 without padding: the image is its own column matrix, no copies.
        if (s.taps() > 1 || s.strideH > 1 || s.strideW > 1 || s.padded())
            p.im2col = s;
    }
    w.finish();

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    const std::vector<const EngineInfo*> engines = planEngines(pl, target, "threads");
    for (const auto* e : engines)
        p.engines.push_back(e->name);
    const EngineInfo& core = *engines[0];
    p.packing = pl.get<bool>("packing", true);
    p.vectorise = pl.oneOf("vectorise", {"auto", "r", "k", "m", "b"}, std::string("auto"));
    p.orderedReduce = readReduction(pl, true);
    const Range<unsigned> factor{1, 16};
    p.rm = pl.get<unsigned>("rm", 4u, factor);
    p.rb = pl.get<unsigned>("rb", 3u, factor);
    p.rr = pl.get<unsigned>("rr", 1u, factor);
    p.rk = pl.get<unsigned>("rk", 1u, factor);
    p.registers =
        pl.get<unsigned>("registers", core.vectorRegisters, Range<unsigned>{2, core.vectorRegisters});
    p.bOuter = pl.oneOf("order", {"mbrk", "bmrk"}, std::string("mbrk")) == "bmrk";
    p.tiling = pl.oneOf("tiling", {"none", "l2"}, std::string("none"));
    // The L2 the tiling fills: the caches' capacities are not in TargetInfo, so the plan states them.
    // Defaults: 512 KiB per K1 cluster (facts: k1-x60.md), 16 ways (assumption, as the k1 target).
    p.l2Size = pl.get<Bytes>("l2_size", Bytes{512 * 1024}).value;
    p.l2Assoc = pl.get<unsigned>("l2_assoc", 16u, Range<unsigned>{1, 64});
    // vector_length 1: one element per instruction, the loop as scalar code issues it (the
    // baseline of the vectorisation speed-up).
    const unsigned registerLanes = std::max(1u, core.registerBytes / kElem);
    p.vectorLength = pl.get<unsigned>("vector_length", registerLanes, Range<unsigned>{1, registerLanes});
    std::vector<std::uint64_t> einsumThreads;
    if (pl.has("einsum_threads"))
        einsumThreads = readCounts(pl, "einsum_threads");
    p.memory = &planMemory(pl, target, core);
    pl.finish();

    p.registerBytes = core.registerBytes;
    const unsigned need = ttBlockRegisters(p.rm, p.rb, p.rr, p.rk) + stagingRegisters(p);
    if (need > p.registers)
        pl.fail("rm", fmt::format("register block {{Rm {}, Rb {}, Rr {}, Rk {}}} needs Rm·Rb·Rr + min(Rb·Rk, "
                                  "Rm·Rr) + 1{} = {} vector registers; the budget is {}",
                                  p.rm, p.rb, p.rr, p.rk,
                                  stagingRegisters(p) ? " + 2 (f16 cores' staging)" : "", need, p.registers));
    const unsigned scalarsUsed = scalarRegistersUsed(p);
    if (core.scalarRegisters < scalarsUsed)
        pl.fail(p.vectorLength == 1 ? "vector_length" : "threads",
                fmt::format("engine '{}' has {} scalar registers; the TT loops use {}{}", core.name,
                            core.scalarRegisters, scalarsUsed,
                            p.vectorLength == 1 ? " (as scalar code the block's operands are scalars)" : ""));
    if (!einsumThreads.empty() && einsumThreads.size() != d)
        pl.fail("einsum_threads",
                fmt::format("one thread count per einsum: {} einsums, {} counts", d, einsumThreads.size()));
    for (auto t : einsumThreads)
        if (t > engines.size())
            pl.fail("einsum_threads",
                    fmt::format("{} threads in an einsum but the plan has {}", t, engines.size()));
    for (const auto& s : target.spaces) {
        if (!p.ddr && s.level == "ddr")
            p.ddr = &s;
    }
    if (p.l2Size < p.l2Assoc * kElem)
        pl.fail("l2_size", fmt::format("an L2 of {} B cannot hold {} ways", p.l2Size, p.l2Assoc));

    const std::uint32_t vlmax = p.vectorLength;
    const std::uint64_t largest = p.shape.largestIntermediate(p.batch);
    MemoryLayout layout(*p.memory, kCorePage);
    if (p.im2col) {
        p.imageAddr =
            layout.allocate("image", std::uint64_t{p.im2col->h} * p.im2col->w * p.im2col->channels * kElem);
        p.copyVlmax = std::max(1u, core.registerBytes * kIm2colLmul / kElem);
        p.im2colRows = contiguousSlices(p.batch, engines.size(), 1);
    }
    p.xAddr = layout.allocate("x", p.batch * p.shape.inSize() * kElem);
    const auto chain = p.shape.einsums(p.batch);
    for (const auto& e : chain)
        p.coreAddrs.push_back(layout.allocate(fmt::format("G{}", e.core), e.coreElements() * p.coreElem()));
    // A ring's later chains share the middle cores and hold their own slices of the end cores.
    for (std::uint64_t a = 1; a < p.ringRank; ++a)
        for (unsigned t = 0; t < d; ++t) {
            const bool end = chain[t].core == 0 || chain[t].core + 1 == d;
            p.coreAddrs.push_back(end ? layout.allocate(fmt::format("G{}.{}", chain[t].core, a),
                                                        chain[t].coreElements() * p.coreElem())
                                      : p.coreAddrs[t]);
        }
    for (int i = 0; i < (d > 1 ? (d > 2 ? 2 : 1) : 0); ++i)
        p.buffers.push_back(layout.allocate(fmt::format("T{}", i), largest * kElem));
    p.yAddr = layout.allocate("y", p.batch * p.shape.outSize() * kElem);
    if (layout.end() > (std::uint64_t{1} << 31))
        w.fail("tt", fmt::format("the TT layer's arrays take {} B; the loops' 32-bit pointers reach 2 GiB",
                                 layout.end()));
    layout.requireFits(w, "tt", "TT layer " + p.shape.describe());

    for (unsigned u = 0; u < d * p.ringRank; ++u) {
        const unsigned t = u % d;
        EinsumPlan e;
        e.e = chain[t];
        if (p.ringRank > 1) {
            e.ringRank = p.ringRank;
            e.ringSlice = u / d;
            e.ringLeft = e.e.core == 0;
            e.ringRight = e.e.core + 1 == d;
            e.accumulate = e.ringSlice > 0 && t + 1 == d;
        }
        e.vlmax = vlmax;
        e.packed = p.packing;
        if (p.vectorise == "auto")
            e.vec = e.e.r >= std::min<std::uint64_t>(vlmax, e.e.k()) ? Dim::R : Dim::K;
        else
            e.vec = p.vectorise == "r"   ? Dim::R
                    : p.vectorise == "k" ? Dim::K
                    : p.vectorise == "m" ? Dim::M
                                         : Dim::B;
        // Adding into the output needs whole output elements in the accumulators, not k partial sums.
        if (e.accumulate && e.vec == Dim::K)
            e.vec = Dim::B;
        e.holdInputs = p.rb * p.rk <= p.rm * p.rr;
        e.threads = einsumThreads.empty()
                        ? static_cast<unsigned>(engines.size())
                        : static_cast<unsigned>(std::max<std::uint64_t>(1, einsumThreads[t]));
        e.tile = p.tiling == "l2" ? l2Tile(e.e, e.threads, p.l2Size, p.l2Assoc, p.rb, p.coreElem())
                                  : e.units(Dim::B);
        if (e.vec == Dim::B && p.tiling == "l2")
            e.tile = std::max<std::uint64_t>(p.rb, (e.tile + vlmax - 1) / vlmax / p.rb * p.rb);
        const Dim outer = p.bOuter ? Dim::B : Dim::M, inner = p.bOuter ? Dim::M : Dim::B;
        const unsigned outerBlock = outer == Dim::M ? p.rm : p.rb;
        e.split = (e.units(outer) + outerBlock - 1) / outerBlock >= e.threads ? outer : inner;
        e.slices = contiguousSlices(e.units(e.split), e.threads, e.split == Dim::M ? p.rm : p.rb);
        e.inAddr = t == 0 ? p.xAddr : p.buffers[(t - 1) % 2];
        e.outAddr = t + 1 == d ? p.yAddr : p.buffers[t % 2];
        e.coreAddr = p.coreAddrs[u];
        p.einsums.push_back(e);
    }
    auto k = std::make_unique<TensorTrainKernel>(std::move(p));
    k->echoFrom(w, pl);
    return k;
}

}  // namespace tessim
