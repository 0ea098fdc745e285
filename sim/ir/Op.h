// The op IR: what a schedule tells an engine to do. Ops carry addresses and sizes, so the same
// stream drives timing, traffic, energy, hazard checks and functional execution.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessim {

// The built-in kinds; what each is (class, fields, footprint, semantics, timing) is its row in
// the op-descriptor table (sim/ir/OpTable.h), which can hold more kinds than these
// (registerOpKind): a kind is any value the table has a row for.
enum class OpKind : std::uint16_t {
    Nop,          // with tag ≠ 0: a mark (layer boundary); the engine records its state there
    VLoad,        // vd ← mem[space:addr + i·stride], vl elements (stride 0 = unit stride)
    VStore,       // mem ← vs0
    ScalarLoad,   // sd ← mem[space:addr]
    Fma,          // vd ← vs0 · vs1 + vs2
    Mul,          // vd ← vs0 · vs1
    Add,          // vd ← vs0 + vs1
    Broadcast,    // vd ← splat(scalar register vs0, or imm when vs0 is none)
    Slide,        // vd[i] ← vs0[i + imm] (elements shifted in from vs1, or zero when vs1 is none);
                  // stride S > 1 (in elements): vd[i] ← (vs0, vs1, vs2 end to end)[i·S + imm], imm ≥ 0
    Reduce,       // d ← Σ vs0[i] (+ scalar vs1 when given); d is a scalar register or element 0 of a
                  // vector; kOrdered: strictly in element order (vfredosum), else any order (vfredusum);
                  // count kReduceMax: d ← max(vs0[i], vs1) instead (vfredmax)
    MacTile,      // a tile of convolution / GEMM on a MAC array (see MacTileArgs)
    DmaStart,     // start the DMA described by dma, completion signalled on tag
    DmaWait,      // wait until every DMA started with tag has completed
    Barrier,      // all `count` engines that reach barrier `tag` continue together
    Fork,         // signal event `tag` (another engine's Join waits for it)
    Join,         // wait until event `tag` has been signalled `count` times in total
    SAdd,         // sd ← ss0 + (ss1, or imm when ss1 is none)
    SMul,         // sd ← ss0 · (ss1 or imm)
    SCompare,     // sd ← 1 if ss0 < (ss1 or imm), else 0 (slt: a loop's exit test)
    SShift,       // sd ← ss0 shifted left by (ss1 or imm) bits, right when negative (integer dtypes)
    ScalarStore,  // mem[space:addr] ← ss0 (one element of dtype)
    Branch,       // a loop back-edge; kTaken when it jumps back. With ss0 (the loop's condition),
                  // functional runs check that the flag agrees with ss0 ≠ 0.
    VSetVl,       // sd ← min(AVL, VLMAX): AVL from ss0 or vl, VLMAX = LMUL (imm, 1..8) · VLEN / SEW
    Gather,       // vd[i] ← vs0[vs1[i]] (vrgather.vv); an index outside 0..vl−1 gives 0
    WidenFma,     // vd ← vs0 · vs1 + vd at twice the sources' width (vfwmacc: f16 × f16 + f32); vd is a
                  // group of 2·LMUL registers (vs2 names the accumulator, normally vd)
    SegLoad,      // vlseg<nf>: vl segments of `count` (nf) fields at addr, unit stride: field f of
                  // segment i → element i of register group vd + f·LMUL
    SegStore,     // vsseg<nf>: the reverse, from the groups vs0, vs0 + LMUL, …
    Fence,        // wait until every store the engine issued has reached its memory (store buffer
                  // drained): a DMA started after it reads the stored bytes, not older ones
    SDiv,         // sd ← ss0 / ss1 (integer quotient, or remainder: one divider times both);
                  // kWord: on 32-bit words (RV64 divw/remw), which a unit may time apart
    FAdd,         // scalar FP on the FP pipe: sd ← ss0 + ss1 (sub, min/max, sign injection as well)
    FMul,         // scalar FP: sd ← ss0 · ss1
    FMadd,        // scalar FP: sd ← ss0 · ss1 + ss2 (one rounding)
    FDiv,         // scalar FP: sd ← ss0 / ss1 (square root as well: one unit times both)
    FCvt,  // scalar FP: sd ← ss0 converted to dtype (int → FP, FP → FP, moves into an FP register)
    FCmp,  // scalar FP: sd ← 1 if ss0 < ss1, else 0 (compares, class, FP → int, moves to an int register)
    Max,   // vd ← max(vs0, vs1) (vfmax, vmax): pooling, ReLU
    Min,   // vd ← min(vs0, vs1) (vfmin, vmin): clipping
    Sub,   // vd ← vs0 − vs1 (vfsub, vsub; ss0 first: vfrsub)
    Div,   // vd ← vs0 / vs1 (vfdiv, vdiv, vdivu; vfrdiv, remainders and vfsqrt timed alike: one divider)
    Convert,      // vd ← vs0 as dtype, from the type in `count` (a DType): vsext/vzext, vncvt, vfcvt,
                  // vfwcvt, vfncvt. Integer results round to nearest even and saturate (vfcvt.x.f.v, vnclip)
    Recip,        // vd ← 1/vs0 to 8 significant bits (a reciprocal estimate, as vfrec7.v or a DSP's seed
                  // for Newton–Raphson division; not the RVV table's bits)
    BuiltInCount  // number of built-in kinds, not an op
};

constexpr std::size_t kBuiltInOpKinds = static_cast<std::size_t>(OpKind::BuiltInCount);
// A Reduce whose `count` is this takes the largest element (vfredmax), not the sum.
constexpr std::uint32_t kReduceMax = 1;

enum class DType : std::uint8_t { I8, I16, I32, F16, F32, F64 };
constexpr unsigned kDTypeCount = 6;  // the DType values

constexpr std::uint8_t kNoReg = 0xFF;
// Register ids: vector registers first, then scalar ones. An engine may have fewer of each
// (EngineConfig); a vector op may name a scalar register as a source (vfmacc.vf): it is splat.
constexpr unsigned kVectorRegs = 64;     // v0..v63 → register ids 0..63
constexpr unsigned kScalarRegBase = 64;  // s0..s63 → register ids 64..127
constexpr unsigned kRegIds = 128;

inline unsigned dtypeBytes(DType t) {
    switch (t) {
    case DType::I8: return 1;
    case DType::I16:
    case DType::F16: return 2;
    case DType::I32:
    case DType::F32: return 4;
    case DType::F64: return 8;
    }
    return 4;
}

// A 1-D to 3-D strided copy: innermost run of rowBytes contiguous bytes, repeated
// rows times with srcRowStride/dstRowStride, repeated planes times with the plane strides.
// Overlapping source windows (halos) are allowed. Multicast, two forms: one read is also
// written to multicastCount more destinations dst + i·multicastStride in dstSpace; or, with a
// group (TargetInfo::groups, named in the target YAML), to the same offset dst in every member
// memory of the group (other cores' memories; dstSpace is then ignored).
struct DmaArgs {
    std::uint8_t srcSpace;
    std::uint8_t dstSpace;
    std::uint8_t channel;
    std::uint8_t multicastCount;  // extra destinations (0 = unicast); see multicastStride
    std::uint8_t group;           // multicast group id (≥ 1), 0 = none
    std::uint32_t rowBytes;       // innermost contiguous bytes
    std::uint32_t rows;           // second dimension count (≥ 1)
    std::uint32_t planes;         // third dimension count (≥ 1)
    std::uint64_t src;
    std::uint64_t dst;
    std::int64_t srcRowStride;
    std::int64_t srcPlaneStride;
    std::int64_t dstRowStride;
    std::int64_t dstPlaneStride;
    std::uint64_t multicastStride;  // see above

    std::uint64_t totalBytes() const { return std::uint64_t{rowBytes} * rows * planes; }
};

// A convolution tile on a MAC array:
//   out[n][y][x] (+)= Σ_c,ky,kx in[c][y·strideH + ky][x·strideW + kx] · w[n][c][ky][kx].
// Tensors sit in one scratchpad space at the given offsets, channel-major, densely packed: INT8
// input and weights, INT32 partial sums at `out`.
// Output requantisation (requantize = 1): after accumulating, each INT32 accumulator acc of the
// tile becomes the INT8 value clamp(round_half_away(acc · multiplier / 2^shift), −128, 127)
// (the product taken in 64 bits, ties rounded away from zero; see requantizeI8), written at out8
// (same space, same layout as `out`, 1 B per output); the INT32 partial sums stay at `out`.
// A schedule that splits the input channels sets it on the last channel chunk of a tile only.
// Accumulators in the array (inArray ≥ 1, a target whose array has `accumulators`): the INT32
// partial sums stay in the array between the tiles of one output tile (`accumulate` adds to
// them) and never touch `out` — except that inArray = 2 drains them to `out` after the tile (the
// last channel chunk of a tile whose INT32 results are wanted); the INT8 outputs of a requantising
// tile leave at out8 as before. The tile's outputs × 4 B must fit the array's accumulators.
// A GEMM is a tile with kh = kw = 1, inH = outH = 1.
struct MacTileArgs {
    std::uint8_t space;
    std::uint8_t accumulate;  // 1: add into existing partial sums (input channels split)
    std::uint8_t strideW;     // input columns between output columns
    std::uint8_t kh;
    std::uint8_t kw;
    std::uint8_t pad;         // unused by the array itself: padding is materialised by the schedule
    std::uint8_t requantize;  // 1: also write the INT8 requantised outputs at out8 (see above)
    std::uint8_t shift;       // requantisation right shift, 0..63
    std::uint8_t strideH;     // input rows between output rows
    std::uint8_t
        inArray;  // 0: partial sums at `out`; 1: in the array's accumulators; 2: and drained to `out`
    std::uint16_t channels;    // input channels of this tile
    std::uint16_t filters;     // output channels of this tile
    std::int32_t multiplier;   // requantisation multiplier
    std::uint32_t inH, inW;    // input tile (halo included)
    std::uint32_t outH, outW;  // output tile
    std::uint64_t in;          // offsets in `space`
    std::uint64_t weights;
    std::uint64_t out;
    std::uint64_t out8;  // INT8 outputs when requantize
};

// clamp(round_half_away(acc · multiplier / 2^shift), −128, 127), shift ≤ 63: |acc · multiplier|
// ≤ 2^62, so the magnitude plus half an LSB fits in 64 unsigned bits.
inline std::int8_t requantizeI8(std::int32_t acc, std::int32_t multiplier, unsigned shift) {
    const std::int64_t p = std::int64_t{acc} * multiplier;
    const bool negative = p < 0;
    std::uint64_t mag = negative ? 0 - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
    if (shift > 0)
        mag = (mag + (std::uint64_t{1} << (shift - 1))) >> shift;
    if (negative)
        return mag >= 128 ? std::int8_t{-128} : static_cast<std::int8_t>(-static_cast<std::int32_t>(mag));
    return mag >= 127 ? std::int8_t{127} : static_cast<std::int8_t>(mag);
}

struct Op {
    OpKind kind = OpKind::Nop;
    DType dtype = DType::F32;
    std::uint8_t space = 0;  // memory space for loads and stores
    std::uint8_t dst = kNoReg;
    std::uint8_t src[3] = {kNoReg, kNoReg, kNoReg};
    std::uint8_t flags = 0;  // the k… bits below (kBundleStart … kInteger64)
    // Loads and stores: the scalar register the address comes from (the pointer a loop
    // increments), or none. Timing only: the op waits for it; `addr` stays the absolute address.
    std::uint8_t base = kNoReg;
    // The register group the instruction was issued at, LMUL in eighths (1 = mf8 … 64 = m8), or 0:
    // derived from vl. Timing only: a core that prices a vector op by its LMUL, not by its active
    // elements (the X60, measured at vl = 1 and vl = VLMAX), charges a short-vl op as its group.
    std::uint8_t lmul8 = 0;
    std::uint32_t vl = 0;     // elements
    std::uint32_t tag = 0;    // DMA tag, barrier id, event id
    std::uint32_t count = 0;  // barrier participants, join count, fields of a segment load/store
    std::uint64_t addr = 0;
    std::int64_t stride = 0;  // loads, stores: bytes, 0 = unit stride; a slide: elements (0, 1 = plain)
    double imm = 0.0;
    union {
        DmaArgs dma;
        MacTileArgs mac;
    };

    Op() : dma{} {}

    static constexpr std::uint8_t kBundleStart = 1;  // VLIW: this op opens a new bundle
    static constexpr std::uint8_t kOrdered = 2;      // Reduce: in element order (vfredosum)
    static constexpr std::uint8_t kTaken = 4;        // Branch: taken (jumps back)
    // MacTile: the operands reach the array at its own rate, without memory accesses (SCALE-Sim's
    // model, which has no SRAM bandwidth); otherwise they stream through the tile's memory.
    static constexpr std::uint8_t kIdealOperands = 8;
    // SMul, SDiv: an RV64 word op (mulw, divw, remw …) on the low 32 bits; a unit that times
    // `<op>_w` apart (a narrower multiplier or divider pass) uses that row.
    static constexpr std::uint8_t kWord = 16;
    // Branch: the front end predicted it wrong; the engine charges its mispredict_penalty.
    static constexpr std::uint8_t kMispredicted = 32;
    // Add: the instruction is one of the integer ALU's slower ops — bitwise and/or/xor, a shift, a
    // compare, a merge or move, an add with carry, vid/viota (a program's) — which a unit may time
    // apart (add_logic). Timing only: the op's semantics stay the add's (programs execute on
    // their hart), and schedules have no field for it.
    static constexpr std::uint8_t kBitwise = 64;
    // Mul, Fma, Reduce at 64-bit elements: the elements are integers (dtype f64 stands for the
    // width: the IR has no 64-bit integer type), which a unit may time apart (mul_int64,
    // fma_int64, reduce_int: the X60's integer multiplier takes four passes at e64). Timing only.
    static constexpr std::uint8_t kInteger64 = 128;
};

// A MAC tile with no output: it computes nothing, waits for the array and takes one cycle.
// Schedules use it to order a write-back DMA after the compute that produced its data.
inline Op macArrayFence(std::uint8_t space) {
    Op op;
    op.kind = OpKind::MacTile;
    op.dtype = DType::I8;
    op.mac = MacTileArgs{};
    op.mac.space = space;
    op.mac.strideH = op.mac.strideW = 1;
    return op;
}

inline Op dmaStartOp(std::uint32_t tag, const DmaArgs& transfer) {
    Op op;
    op.kind = OpKind::DmaStart;
    op.tag = tag;
    op.dma = transfer;
    return op;
}

inline Op fenceOp() {
    Op op;
    op.kind = OpKind::Fence;
    return op;
}

inline Op dmaWaitOp(std::uint32_t tag) {
    Op op;
    op.kind = OpKind::DmaWait;
    op.tag = tag;
    return op;
}

inline bool isScalarRegister(std::uint8_t r) {
    return r != kNoReg && r >= kScalarRegBase;
}

// "v3", "s5" (scalar registers count from kScalarRegBase), "id N" beyond them.
std::string registerName(std::uint8_t r);
// The kind's name in its table row ("?" for a kind the table lacks), and the kind of a name.
std::string_view opKindName(OpKind k);
bool parseOpKind(std::string_view name, OpKind& out);
std::string_view dtypeName(DType t);
bool parseDType(std::string_view name, DType& out);

}  // namespace tessim
