// The op-descriptor table: every op kind described once — name, class, operands and the registers
// they span, JSON Lines fields, footprint, functional semantics and the timing class a unit table
// keys on. The parser and writer (OpJsonl), footprints, checks, units and the engine read these
// rows instead of switching over the kind, so a new kind is one registerOpKind() call.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/ir/Op.h"

namespace tessim {

class OpExecution;

// How an engine issues the op.
enum class OpClass : std::uint8_t {
    Compute,   // a vector or array op on a compute unit
    Scalar,    // a scalar ALU op, branch or vsetvl: one element whatever vl says, on a compute unit
    Memory,    // a load or store through a load/store unit
    Transfer,  // starts a DMA transfer
    Sync,      // waits: for stores, a DMA tag, a barrier, a join; or signals an event
    Mark,      // no work: a layer mark (tag ≠ 0) or a VLIW filler slot
};

// The op's fields, in the Op struct and in JSON Lines.
enum class OpLayout : std::uint8_t {
    Registers,   // dtype, vd/sd, vs0..vs2/ss0..ss2, vl; more by the options below
    Branch,      // dtype, ss0 (the loop condition), taken
    MacTile,     // MacTileArgs
    Transfer,    // DmaArgs and a tag
    TagWait,     // tag
    Rendezvous,  // id and count (barrier, join)
    Signal,      // id (fork)
    Bare,        // no field (fence)
    Mark,        // mark (optional tag)
};

// What the op's immediate is for (Registers layout).
enum class Immediate : std::uint8_t {
    None,
    Always,        // imm is an operand (broadcast value, slide offset)
    InPlaceOfSs1,  // imm replaces a missing second source (scalar ALU)
};

// The registers each operand spans in an op of LMUL group G (Engine::operandSpan).
enum class RegisterSpan : std::uint8_t {
    Group,          // every operand G registers
    ReduceSource,   // vs0 G registers, the accumulator and result one element
    Widening,       // vd and vs2 2·G (one register while they fit), the sources G
    SegmentDest,    // vd nf·G registers (one group per field), the rest G
    SegmentSource,  // vs0 nf·G registers, the rest G
    Convert,        // vd G registers of dtype, vs0 the group of its vl elements of the type in `count`
};

// Which bytes the op touches (footprint()).
enum class FootprintRule : std::uint8_t { None, ElementsRead, ElementsWritten, Transfer, MacTile };

// What a Sync op waits for or signals.
enum class SyncRule : std::uint8_t { None, DrainStores, DmaTag, Barrier, Join, Signal };

// A timing class: the key of a unit's `ops:` table. Built-in kinds each have their own, named as
// the kind; a class may be a variant of another, used when a flag of the op asks for it and the
// unit times it, else the op costs as its primary class.
using TimingClass = std::uint16_t;

// Functional semantics: compute the op's result on the engine's registers (and, for a store, the
// bytes it writes). A null function: the op changes no register.
using OpSemantics = void (*)(const Op& op, OpExecution& exec);

struct OpDescriptor {
    // What the engine reads on every op comes first (one cache line); names and text last.
    OpClass opClass = OpClass::Compute;
    OpLayout layout = OpLayout::Registers;
    bool scalar = false;   // one element whatever vl says: no vector registers, same cost at any vl
    bool memory = false;   // Registers layout: mem, addr, stride, saddr
    bool store = false;    // writes memory
    bool segment = false;  // nf fields (1..8), unit stride
    Immediate immediate = Immediate::None;
    bool lmul = false;     // vsetvl's "lmul" (held in imm)
    bool ordered = false;  // "ordered" (Op::kOrdered)
    bool word = false;     // "word" (Op::kWord)
    RegisterSpan span = RegisterSpan::Group;
    FootprintRule footprint = FootprintRule::None;
    SyncRule sync = SyncRule::None;
    bool statesPeak = false;       // the op's rate states a unit's peak (an FMA's)
    bool branch = false;           // a taken one redirects the front end (Op::kTaken)
    bool streamsOperands = false;  // a tile whose operands stream through memory (MacTile)
    bool unitSemantics = false;    // the unit computes the result (FunctionalUnit::executeFunctional)
    // Registers layout: the operands every op of the kind names — a destination, and the first
    // `sources` of vs0/ss0, vs1, vs2 (later ones may be left out: an immediate, an optional
    // accumulator). A schedule line without them is refused.
    bool needsDest = false;
    std::uint8_t sources = 0;
    // Filled by the table.
    bool multiGroupSpan = false;
    OpKind kind = OpKind::Nop;
    TimingClass timingClass = 0;
    TimingClass variantClass = 0;
    // Work (FLOP-like) per element on a compute unit (an FMA: 2).
    double workPerElement = 0.0;
    OpSemantics semantics = nullptr;
    bool (*variantWhen)(const Op&) = nullptr;  // selects the variant timing class
    // A second variant, tried first (Add: add_logic for bitwise ops; Reduce: reduce_int).
    bool (*secondVariantWhen)(const Op&) = nullptr;
    TimingClass secondVariantClass = 0;
    // Nonzero: the variants apply only to ops carrying one of these flags, a test a unit makes
    // before it calls the predicates (most ops then take the primary row at once).
    std::uint8_t variantFlags = 0;

    std::string name;     // JSON Lines "op", stats and energy keys (<name>_<dtype>)
    std::string summary;  // one line for the reference (docs/op-reference.md)
    // Timing: the class's name (empty: the op's own name), and the variant class's.
    std::string timing;
    std::string variantTiming;
    std::string secondVariantTiming;

    bool vectorAccess() const { return memory && !scalar; }
    bool namesRegisters() const { return layout == OpLayout::Registers || layout == OpLayout::Branch; }
    // Operands span more than the op's LMUL group (widening, segments).
    bool multiGroup() const { return multiGroupSpan; }
};

namespace detail {
// Rows by kind; read on every op issued, so the accessor below is inline.
extern std::vector<const OpDescriptor*> gOpRows;
}  // namespace detail

inline const OpDescriptor& opInfo(OpKind k) {
    return *detail::gOpRows[static_cast<std::size_t>(k)];
}

// Kinds in the table (built-in ones first, in OpKind order).
std::size_t opKindCount();
bool isKnownOpKind(OpKind k);
const OpDescriptor* findOpKind(std::string_view name);
// Adds a row and returns its kind. The name must be new; its timing class is the name unless
// `timing` names another (an existing class or a new one). Not thread-safe: register before a run.
OpKind registerOpKind(OpDescriptor row);

std::size_t timingClassCount();
std::string_view timingClassName(TimingClass c);
bool findTimingClass(std::string_view name, TimingClass& out);
// The kind whose variant a class is, or null when it is a primary class.
const OpDescriptor* variantOwner(TimingClass c);

// Elements a load or store moves: one for scalar ones, vl · fields for segments, else vl.
inline std::uint64_t memoryElements(const Op& op, const OpDescriptor& d) {
    if (d.scalar && d.memory)
        return 1;
    return d.segment ? std::uint64_t{op.vl} * op.count : op.vl;
}
inline std::uint64_t memoryElements(const Op& op) {
    return memoryElements(op, opInfo(op.kind));
}

// Registers per operand at the op's vl and SEW: a power of two (LMUL), 1 for fractions.
inline unsigned lmulRegisters(const Op& op, unsigned registerBytes) {
    const std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    const std::uint64_t registers = (bytes + registerBytes - 1) / registerBytes;
    unsigned group = 1;
    while (group < registers)
        group *= 2;
    return group;
}

// A Convert's source type (held in `count`) and the registers its vl source elements span.
inline DType convertSource(const Op& op) {
    return static_cast<DType>(op.count);
}
inline unsigned convertSourceRegisters(const Op& op, unsigned registerBytes) {
    Op source = op;
    source.dtype = convertSource(op);
    return lmulRegisters(source, registerBytes);
}

// The register group a Convert is priced by (LMUL in eighths, as Op::lmul8): the wider of its
// source's and its destination's, as the X60 prices vsext (destination) and vncvt (source).
inline std::uint8_t convertLmul8(const Op& op, unsigned registerBytes) {
    auto eighths = [&](DType t) {
        const std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(t);
        std::uint64_t e = 1;
        while (e < 64 && e * registerBytes < bytes * 8)
            e *= 2;
        return e;
    };
    return static_cast<std::uint8_t>(std::max(eighths(op.dtype), eighths(convertSource(op))));
}

// The timing class an op of row `d` is costed as (its variant when the op asks for it).
inline TimingClass timingClassOf(const Op& op, const OpDescriptor& d) {
    if (d.secondVariantWhen && d.secondVariantWhen(op))
        return d.secondVariantClass;
    return d.variantWhen && d.variantWhen(op) ? d.variantClass : d.timingClass;
}

}  // namespace tessim
