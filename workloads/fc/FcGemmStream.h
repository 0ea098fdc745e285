// The RVV GEMM of a dense layer, y[b][o] = Σ_i x[b][i] · W[o][i], as one thread's op stream: what
// the fc kernel runs per thread, and what the K1's convolution (im2col + GEMM) runs on each
// thread's rows. Vectorised over `in` (or `out`), register-blocked rb batch rows × ro outputs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/config/Reader.h"
#include "sim/ir/OpStream.h"
#include "sim/machine/TargetInfo.h"
#include "workloads/common/Int8Outputs.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/ThreadSlices.h"

namespace tessim {
namespace fc_gemm {

// Fork/join of the threads: thread 0 signals the fork event, the others join it; every thread
// reaches the closing barrier.
constexpr std::uint32_t kForkEvent = 1;
constexpr std::uint32_t kJoinBarrier = 2;
// Arrays start on page boundaries, as an allocator hands out large buffers.
constexpr std::uint64_t kPage = 4096;
// Loop counters and pointers are 32-bit integers.
constexpr DType kIndex = DType::I32;

// Scalar registers: x0 reads zero, then the loop's bookkeeping, the reduced sums, then one
// pointer per y row, x row and W row of a block.
constexpr std::uint8_t kZero = scalarReg(0);
constexpr std::uint8_t kFlag = scalarReg(1);
constexpr std::uint8_t kEnd = scalarReg(2);
constexpr std::uint8_t kVl = scalarReg(3);
constexpr std::uint8_t kBlock = scalarReg(4);
constexpr unsigned kSumRegs = 4;  // reduced sums in flight to their stores
constexpr unsigned kFirstSum = 5;
constexpr unsigned kFirstPointer = kFirstSum + kSumRegs;

}  // namespace fc_gemm

struct FcParams {
    std::uint64_t in = 0, out = 0, batch = 0;
    unsigned repeat = 1;
    DType dtype = DType::F32;
    bool overOut = false;     // vectorised over `out` (else over `in`)
    unsigned rb = 1, ro = 1;  // batch rows and outputs (over `out`: output vectors) per register block
    unsigned lmul = 1;
    unsigned group = 1;  // registers per operand (lmul on engines with register groups)
    // f16 data accumulated in f32 (vfwmacc): accumulator groups of twice the operands' registers.
    bool widen = false;
    // Each output's lanes summed strictly in element order (vfredosum), else in any order (vfredusum).
    bool orderedReduce = false;
    std::uint32_t vlmax = 0;  // elements per vector op
    const MemorySpaceInfo* memory = nullptr;
    std::uint64_t xAddr = 0, wAddr = 0, yAddr = 0;
    std::uint64_t yRow = 0;  // elements from one y row to the next (0: `out`, y dense)
    std::vector<ThreadSlice> threads;
    // Its threads' fork at the start and barrier at the end (false: a phase of a longer stream,
    // whose owner synchronises the threads).
    bool forkJoin = true;
    // INT8 (dtype i8, vectorised over `out`): W packed [in][out], as an INT8 GEMM packs it (a W
    // column is a unit-stride vle8); x[b][i] loaded with lb; the W columns sign-extended to i16
    // and multiplied into i32 accumulators (vwmacc.vx), which leave requantised (Int8Outputs).
    // lmul and group are the i8 operands'.
    Int8Outputs int8;
    unsigned registerBytes = 0;  // the conversions' prices

    unsigned elem() const { return dtypeBytes(dtype); }
    bool isInt8() const { return dtype == DType::I8; }
    unsigned yElem() const { return isInt8() ? int8.outBytes() : elem(); }
    std::uint64_t yStride() const { return yRow ? yRow : out; }
    std::uint64_t flops() const { return 2 * batch * in * out * repeat; }
    // The accumulators' datatype and registers.
    DType accType() const { return widen ? DType::F32 : dtype; }
    unsigned accGroup() const { return widen ? 2 * group : isInt8() ? 4 * group : group; }
    // Lanes the accumulators hold: a row shorter than a register fills only `in` of them.
    std::uint32_t reduceVl() const { return static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax, in)); }
};

// The plan's register blocking (rb, ro: 1..maxBlock) and LMUL into p (its dtype set): 2 × 4 at
// LMUL 2, or for INT8 4 × 1 with the i8 operands at LMUL 1 (at most 2: the i32 accumulators take
// 4·LMUL registers).
void readGemmBlocking(config::Reader& plan, FcParams& p, unsigned maxBlock);

// Thread `thread`'s stream (of p.threads): its slice of the outputs for every batch row.
std::unique_ptr<ChunkedOpStream> makeFcStream(const FcParams& p, unsigned thread);

// y[b][o] as the stream computes it, rounded to the dtype at every step: lane l of the
// accumulator takes elements l, l + vlmax, … (a product first, then fused multiply-adds); the
// lanes are then summed in order from zero. x(i) and w(i): the row of x and of W.
double fcReference(const FcParams& p, const std::function<double(std::uint64_t)>& x,
                   const std::function<double(std::uint64_t)>& w);

}  // namespace tessim
