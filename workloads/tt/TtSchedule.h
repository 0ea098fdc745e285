// The resolved schedule of a tensor-train layer, shared by its stream generator and its workload:
// per einsum the vectorised loop, its units (indices, or vector chunks along the vectorised loop),
// the core layout (packed or as stored), the threads' slices and where the arrays are.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/ir/Op.h"
#include "sim/machine/TargetInfo.h"
#include "workloads/common/Slices.h"
#include "workloads/conv/ConvGeometry.h"
#include "workloads/tt/TensorTrainShape.h"

namespace tessim::tt {

constexpr DType kData = DType::F32;
constexpr unsigned kElem = 4;

enum class Dim { M, B, R, K };

inline const char* dimName(Dim d) {
    switch (d) {
    case Dim::M: return "m";
    case Dim::B: return "b";
    case Dim::R: return "r";
    case Dim::K: return "k";
    }
    return "?";
}

// A unit of a loop: one index, or along the vectorised loop a chunk of up to vl indices.
struct Unit {
    std::uint64_t start = 0;
    std::uint32_t len = 1;
};

struct Block {
    std::uint64_t m0, mCount, b0, bCount, r0, rCount;  // in units
};

// One einsum as planned: its shape, the vectorised loop and where its arrays are.
struct EinsumPlan {
    TtEinsum e;
    Dim vec = Dim::R;
    std::uint32_t vlmax = 8;
    bool packed = true;
    bool holdInputs = true;     // operands held for the block: the inputs (else the core's)
    std::uint64_t tile = 0;     // b units per L2 tile
    unsigned threads = 1;       // threads that work on it (the others wait at its barrier)
    Dim split = Dim::M;         // the loop the threads share
    std::vector<Slice> slices;  // per thread, units of `split`
    std::uint64_t inAddr = 0, coreAddr = 0, outAddr = 0;
    // A tensor ring runs as ring-rank chains, chain a with its end cores sliced at ring index a:
    // core 0 at r_0 = a (ringLeft), core d−1 at r_d = a (ringRight). Chains after the first add their
    // output into the layer's (accumulate).
    std::uint64_t ringRank = 1, ringSlice = 0;
    bool ringLeft = false, ringRight = false, accumulate = false;

    std::uint64_t extent(Dim d) const {
        switch (d) {
        case Dim::M: return e.m;
        case Dim::B: return e.b;
        case Dim::R: return e.r;
        case Dim::K: return e.k();
        }
        return 0;
    }
    // Without packing, a k chunk stays inside one row of r1 contiguous elements unless r1 = 1.
    bool kByRow() const { return vec == Dim::K && !packed && e.r1 > 1; }
    std::uint64_t units(Dim d) const {
        if (d != vec)
            return extent(d);
        if (d == Dim::K && kByRow())
            return e.n * ((e.r1 + vlmax - 1) / vlmax);
        return (extent(d) + vlmax - 1) / vlmax;
    }
    Unit unit(Dim d, std::uint64_t i) const {
        if (d != vec)
            return Unit{i, 1};
        if (d == Dim::K && kByRow()) {
            const std::uint64_t perRow = (e.r1 + vlmax - 1) / vlmax;
            const std::uint64_t c = i % perRow;
            return Unit{(i / perRow) * e.r1 + c * vlmax,
                        static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax, e.r1 - c * vlmax))};
        }
        return Unit{i * vlmax,
                    static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax, extent(d) - i * vlmax))};
    }
    // Element of core G[m][r][k] in the plan's layout: packed G_t[m][r][k] (along r, r chunks of vl
    // lanes interleaved: G_t[m][r/vl][k][r%vl]) or the core as stored, G[r][n][m][r1].
    std::uint64_t coreIndex(std::uint64_t m, std::uint64_t r, std::uint64_t k) const {
        const std::uint64_t K = e.k();
        if (!packed)
            return ((r * e.n + k / e.r1) * e.m + m) * e.r1 + k % e.r1;
        if (vec == Dim::R) {
            const std::uint64_t q = r / vlmax, lane = r % vlmax;
            const std::uint64_t len = std::min<std::uint64_t>(vlmax, e.r - q * vlmax);
            return m * e.r * K + q * vlmax * K + k * len + lane;
        }
        return (m * e.r + r) * K + k;
    }
    // Element (r, n, m, j) of this einsum's core in the ring core as stored, G[r][n][m][r1] with the
    // sliced rank at its full ring size.
    std::uint64_t storedIndex(std::uint64_t r, std::uint64_t n, std::uint64_t m, std::uint64_t j) const {
        const std::uint64_t r1Full = ringRight ? ringRank : e.r1;
        return (((ringLeft ? ringSlice : r) * e.n + n) * e.m + m) * r1Full + (ringRight ? ringSlice : j);
    }
    std::uint64_t inputIndex(std::uint64_t b, std::uint64_t k) const { return b * e.k() + k; }
    std::uint64_t outputIndex(std::uint64_t m, std::uint64_t b, std::uint64_t r) const {
        return (m * e.b + b) * e.r + r;
    }
};

struct TtParams {
    TtShape shape;               // a ring: the chain of one ring index, ends 1
    std::uint64_t ringRank = 1;  // > 1: a tensor ring with r_0 = r_d = ringRank
    std::uint64_t batch = 1;
    unsigned repeat = 1;
    unsigned rm = 4, rb = 3, rr = 1, rk = 1;
    unsigned registers = 32;
    unsigned vectorLength = 8;
    // The cores' type in memory: f32, or f16 (fp16 weights, fp32 compute, as seed 000 suggests:
    // each core load is a vle16 and a vfwcvt.f.f.v through a staging register).
    DType coreType = kData;
    unsigned registerBytes = 32;
    bool bOuter = false;
    bool packing = true;
    bool orderedReduce = false;  // sums along k in element order (vfredosum), else vfredusum
    std::string vectorise = "auto";
    std::string tiling = "none";
    unsigned l2Assoc = 16;
    std::uint64_t l2Size = 0;
    const MemorySpaceInfo* memory = nullptr;
    const MemorySpaceInfo* ddr = nullptr;
    std::vector<std::string> engines;
    std::vector<EinsumPlan> einsums;
    std::uint64_t xAddr = 0, yAddr = 0;
    std::vector<std::uint64_t> buffers;  // the two intermediates
    std::vector<std::uint64_t> coreAddrs;
    // A convolution's TT/TR layer: x is the column matrix of its im2col, which the threads build
    // from the NHWC input image (imageAddr), a contiguous slice of the output pixels each, before
    // the first einsum of every pass (RvvIm2colRows: rows in the order [ky][kx][c]).
    std::optional<ConvShape> im2col;
    std::uint64_t imageAddr = 0;
    std::uint32_t copyVlmax = 0;    // elements of one LMUL-8 copy
    std::vector<Slice> im2colRows;  // per thread: its output pixels

    unsigned coreElem() const { return dtypeBytes(coreType); }
    bool narrowCores() const { return coreType != kData; }
    std::uint64_t inSize() const { return shape.inSize(); }
    std::uint64_t outSize() const { return shape.outSize(); }
    std::uint64_t flops() const { return shape.flops(batch) * ringRank * repeat; }
    // The ranks as stored: the chain's, or the ring's with r_0 = r_d = ringRank.
    std::vector<std::uint64_t> storedRanks() const {
        std::vector<std::uint64_t> r = shape.ranks;
        r.front() = r.back() = ringRank;
        return r;
    }
    std::uint64_t parameters() const {
        TtShape stored = shape;
        stored.ranks = storedRanks();
        return stored.parameters();
    }
};

}  // namespace tessim::tt
