#include "sim/ir/OpTable.h"

#include <deque>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "sim/ir/OpSemantics.h"

namespace tessim {
namespace {

bool orderedReduction(const Op& op) {
    return (op.flags & Op::kOrdered) != 0;
}

bool slideTowardsHigherElements(const Op& op) {
    return op.imm < 0;
}

bool wordOperation(const Op& op) {
    return (op.flags & Op::kWord) != 0;
}

bool doublePrecision(const Op& op) {
    return op.dtype == DType::F64;
}

bool bitwiseOperation(const Op& op) {
    return (op.flags & Op::kBitwise) != 0;
}

bool integerElements(const Op& op) {
    return op.dtype == DType::I8 || op.dtype == DType::I16 || op.dtype == DType::I32 ||
           (op.flags & Op::kInteger64) != 0;
}

bool integer64Elements(const Op& op) {
    return (op.flags & Op::kInteger64) != 0;
}

OpDescriptor registersOp(OpKind kind, const char* name, OpClass opClass, const char* summary) {
    OpDescriptor d;
    d.kind = kind;
    d.name = name;
    d.opClass = opClass;
    d.summary = summary;
    return d;
}

OpDescriptor memoryOp(OpKind kind, const char* name, bool store, bool scalar, const char* summary,
                      OpSemantics semantics) {
    OpDescriptor d = registersOp(kind, name, OpClass::Memory, summary);
    d.memory = true;
    d.store = store;
    d.scalar = scalar;
    d.footprint = store ? FootprintRule::ElementsWritten : FootprintRule::ElementsRead;
    d.semantics = semantics;
    return d;
}

OpDescriptor computeOp(OpKind kind, const char* name, double work, const char* summary,
                       OpSemantics semantics) {
    OpDescriptor d = registersOp(kind, name, OpClass::Compute, summary);
    d.workPerElement = work;
    d.semantics = semantics;
    return d;
}

OpDescriptor scalarOp(OpKind kind, const char* name, const char* summary, OpSemantics semantics) {
    OpDescriptor d = registersOp(kind, name, OpClass::Scalar, summary);
    d.scalar = true;
    d.immediate = Immediate::InPlaceOfSs1;
    d.semantics = semantics;
    return d;
}

OpDescriptor controlOp(OpKind kind, const char* name, OpClass opClass, OpLayout layout, SyncRule sync,
                       const char* summary) {
    OpDescriptor d = registersOp(kind, name, opClass, summary);
    d.layout = layout;
    d.sync = sync;
    return d;
}

// The built-in kinds, in OpKind order.
std::vector<OpDescriptor> builtInRows() {
    using namespace semantics;
    std::vector<OpDescriptor> rows;
    rows.push_back(controlOp(OpKind::Nop, "nop", OpClass::Mark, OpLayout::Mark, SyncRule::None,
                             "no work; with \"mark\": N ≠ 0 a layer boundary (per-layer results)"));
    rows.push_back(memoryOp(OpKind::VLoad, "vload", false, false,
                            "vd ← vl elements at mem:addr (stride bytes apart; 0 = unit stride)", vload));
    rows.push_back(memoryOp(OpKind::VStore, "vstore", true, false, "vl elements of vs0 → mem:addr", vstore));
    rows.push_back(memoryOp(OpKind::ScalarLoad, "sload", false, true, "sd ← one element at mem:addr", sload));
    {
        OpDescriptor d = computeOp(OpKind::Fma, "fma", 2.0, "vd ← vs0 · vs1 + vs2 (one rounding)", fma);
        d.statesPeak = true;
        d.variantTiming = "fma_int64";
        d.variantWhen = integer64Elements;
        d.variantFlags = Op::kInteger64;
        rows.push_back(d);
    }
    {
        OpDescriptor d = computeOp(OpKind::Mul, "mul", 1.0, "vd ← vs0 · vs1", mul);
        d.variantTiming = "mul_int64";
        d.variantWhen = integer64Elements;
        d.variantFlags = Op::kInteger64;
        rows.push_back(d);
    }
    {
        OpDescriptor d = computeOp(OpKind::Add, "add", 1.0, "vd ← vs0 + vs1", add);
        d.secondVariantTiming = "add_logic";
        d.secondVariantWhen = bitwiseOperation;
        d.variantFlags = Op::kBitwise;
        rows.push_back(d);
    }
    {
        OpDescriptor d = computeOp(OpKind::Broadcast, "broadcast", 0.0, "vd ← splat(ss0, or imm without ss0)",
                                   semantics::broadcast);
        d.immediate = Immediate::Always;
        rows.push_back(d);
    }
    {
        OpDescriptor d =
            computeOp(OpKind::Slide, "slide", 0.0,
                      "vd[i] ← vs0[i + imm], elements past vl from vs1 (or 0); imm < 0 slides up; with "
                      "\"stride\" S > 1, vd[i] ← (vs0, vs1, vs2 end to end)[i·S + imm] (a shuffle "
                      "configured by a convolution's stride)",
                      slide);
        d.immediate = Immediate::Always;
        d.variantTiming = "slide_up";
        d.variantWhen = slideTowardsHigherElements;
        rows.push_back(d);
    }
    {
        OpDescriptor d = computeOp(
            OpKind::Reduce, "reduce", 0.0,
            "d ← Σ vs0[i] (+ ss1); \"ordered\": in element order (vfredosum); \"max\": d ← max(vs0[i], "
            "ss1) (vfredmax, timed as the sum)",
            reduce);
        d.ordered = true;
        d.span = RegisterSpan::ReduceSource;
        d.variantTiming = "reduce_ordered";
        d.variantWhen = orderedReduction;
        d.secondVariantTiming = "reduce_int";
        d.secondVariantWhen = integerElements;
        rows.push_back(d);
    }
    {
        OpDescriptor d = computeOp(OpKind::MacTile, "mac_tile", 0.0,
                                   "a convolution or GEMM tile on a MAC array (INT8 in, INT32 out)", nullptr);
        d.layout = OpLayout::MacTile;
        d.footprint = FootprintRule::MacTile;
        d.streamsOperands = true;
        d.unitSemantics = true;
        rows.push_back(d);
    }
    {
        OpDescriptor d = controlOp(OpKind::DmaStart, "dma_start", OpClass::Transfer, OpLayout::Transfer,
                                   SyncRule::None, "start a 1-D to 3-D strided DMA copy; completion on tag");
        d.footprint = FootprintRule::Transfer;
        rows.push_back(d);
    }
    rows.push_back(controlOp(OpKind::DmaWait, "dma_wait", OpClass::Sync, OpLayout::TagWait, SyncRule::DmaTag,
                             "wait until every DMA started with tag has completed"));
    rows.push_back(controlOp(OpKind::Barrier, "barrier", OpClass::Sync, OpLayout::Rendezvous,
                             SyncRule::Barrier, "all count engines reaching barrier id continue together"));
    rows.push_back(controlOp(OpKind::Fork, "fork", OpClass::Sync, OpLayout::Signal, SyncRule::Signal,
                             "signal event id"));
    rows.push_back(controlOp(OpKind::Join, "join", OpClass::Sync, OpLayout::Rendezvous, SyncRule::Join,
                             "wait until event id has been signalled count times"));
    rows.push_back(scalarOp(OpKind::SAdd, "sadd", "sd ← ss0 + (ss1, or imm without ss1)", scalarAdd));
    {
        OpDescriptor d =
            scalarOp(OpKind::SMul, "smul", "sd ← ss0 · (ss1 or imm); \"word\": RV64 mulw", scalarMul);
        d.word = true;
        d.variantTiming = "smul_w";
        d.variantWhen = wordOperation;
        d.variantFlags = Op::kWord;
        rows.push_back(d);
    }
    rows.push_back(scalarOp(OpKind::SCompare, "scmp", "sd ← 1 if ss0 < (ss1 or imm), else 0", scalarCompare));
    rows.push_back(scalarOp(OpKind::SShift, "sshift",
                            "sd ← ss0 shifted left by (ss1 or imm) bits, right when negative (integers)",
                            scalarShift));
    rows.push_back(
        memoryOp(OpKind::ScalarStore, "sstore", true, true, "ss0 → one element at mem:addr", sstore));
    {
        OpDescriptor d = scalarOp(OpKind::Branch, "branch",
                                  "a loop back-edge; \"taken\" when it jumps back (checked against ss0)",
                                  semantics::branch);
        d.layout = OpLayout::Branch;
        d.immediate = Immediate::None;
        d.branch = true;
        rows.push_back(d);
    }
    {
        OpDescriptor d =
            scalarOp(OpKind::VSetVl, "vsetvl",
                     "sd ← min(AVL, VLMAX): AVL from ss0 or vl, VLMAX = lmul · VLEN / SEW", setVectorLength);
        d.immediate = Immediate::None;
        d.lmul = true;
        rows.push_back(d);
    }
    rows.push_back(
        computeOp(OpKind::Gather, "vgather", 0.0, "vd[i] ← vs0[vs1[i]] (0 for an index ≥ vl)", gather));
    {
        OpDescriptor d = computeOp(OpKind::WidenFma, "wfma", 2.0,
                                   "vd ← vs0 · vs1 + vd at twice the sources' width (vfwmacc)", widenFma);
        d.span = RegisterSpan::Widening;
        rows.push_back(d);
    }
    {
        OpDescriptor d =
            memoryOp(OpKind::SegLoad, "vlseg", false, false,
                     "vlseg<nf>: field f of segment i → element i of group vd + f·LMUL", segmentLoad);
        d.segment = true;
        d.span = RegisterSpan::SegmentDest;
        rows.push_back(d);
    }
    {
        OpDescriptor d = memoryOp(OpKind::SegStore, "vsseg", true, false,
                                  "vsseg<nf>: the reverse, from groups vs0, vs0 + LMUL, …", segmentStore);
        d.segment = true;
        d.span = RegisterSpan::SegmentSource;
        rows.push_back(d);
    }
    rows.push_back(controlOp(OpKind::Fence, "fence", OpClass::Sync, OpLayout::Bare, SyncRule::DrainStores,
                             "wait until every store the engine issued has reached its memory"));
    {
        OpDescriptor d = scalarOp(OpKind::SDiv, "sdiv",
                                  "sd ← ss0 / (ss1 or imm), integer (remainders alike); \"word\": RV64 divw",
                                  scalarDivide);
        d.word = true;
        d.variantTiming = "sdiv_w";
        d.variantWhen = wordOperation;
        d.variantFlags = Op::kWord;
        rows.push_back(d);
    }
    // Scalar floating point on the FP pipe (RISC-V F/D instructions); `<op>_d`: at f64.
    const struct {
        OpKind kind;
        const char* name;
        const char* variant;
        const char* summary;
        OpSemantics semantics;
    } fp[] = {
        {OpKind::FAdd, "fadd", "fadd_d", "sd ← ss0 + ss1, scalar FP (sub, min/max, sign injection alike)",
         scalarAdd},
        {OpKind::FMul, "fmul", "fmul_d", "sd ← ss0 · ss1, scalar FP", scalarMul},
        {OpKind::FMadd, "fmadd", "fmadd_d", "sd ← ss0 · ss1 + ss2, scalar FP, one rounding", scalarFma},
        {OpKind::FDiv, "fdiv", "fdiv_d", "sd ← ss0 / ss1, scalar FP (square root alike)", scalarDivide},
        {OpKind::FCvt, "fcvt", "",
         "sd ← ss0 as dtype: into an FP register (from an integer, the other precision, a move)",
         scalarConvert},
        {OpKind::FCmp, "fcmp", "",
         "sd ← 1 if ss0 < ss1, else 0: FP into an integer register (compares, class, conversions, moves)",
         scalarCompare},
    };
    for (const auto& f : fp) {
        OpDescriptor d = scalarOp(f.kind, f.name, f.summary, f.semantics);
        d.immediate = Immediate::None;
        if (*f.variant) {
            d.variantTiming = f.variant;
            d.variantWhen = doublePrecision;
        }
        rows.push_back(d);
    }
    // vfmax/vfmin/vfsub time as vfadd on the X60 (../shared/data/k1-board/x60-instructions-vl1.csv:
    // vfmin.vv and vfsub.vv 1, 2, 4, 8 cycles at LMUL 1..8, as vfadd.vv): costed as `add` wherever a
    // unit times no `max`/`min`/`sub` of its own.
    for (const auto& [kind, name, summary, semantics] :
         {std::tuple{OpKind::Max, "max", "vd ← max(vs0, vs1) (vfmax, vmax); timed as add", &max},
          std::tuple{OpKind::Min, "min", "vd ← min(vs0, vs1) (vfmin, vmin); timed as add", &min},
          std::tuple{OpKind::Sub, "sub", "vd ← vs0 − vs1 (vfsub, vsub; a scalar ss0: vfrsub); timed as add",
                     &sub}}) {
        OpDescriptor d = computeOp(kind, name, 1.0, summary, semantics);
        d.timing = "add";
        rows.push_back(d);
    }
    // The divider: iterative, far slower than an add (the X60's vdiv.vv e32 takes 24 cycles at m1
    // where vadd takes 1), so a unit times it on a row of its own.
    rows.push_back(computeOp(OpKind::Div, "div", 1.0,
                             "vd ← vs0 / vs1 (vfdiv, vdiv, vdivu; vfrdiv, vrem, vfsqrt timed alike)",
                             &divide));
    {
        // A conversion reads a group of its source type (`count`) and writes one of its own: the
        // wider of the two prices it (an X60 prices vfcvt, vfwcvt, vsext and vncvt so).
        OpDescriptor d = computeOp(OpKind::Convert, "convert", 0.0,
                                   "vd ← vs0 as dtype, from the type \"from\" (vsext, vncvt, vfcvt, vfwcvt, "
                                   "vfncvt); integers rounded to nearest even and saturated",
                                   &convert);
        d.span = RegisterSpan::Convert;
        rows.push_back(d);
    }
    // A reciprocal estimate: the seed of a divide on a core without a divider (a DSP's Newton–Raphson
    // sequence), timed on a row of its own.
    rows.push_back(computeOp(OpKind::Recip, "recip", 1.0,
                             "vd ← 1/vs0 to 8 significant bits (a reciprocal estimate: vfrec7.v, a DSP's "
                             "Newton–Raphson seed)",
                             &reciprocalEstimate));
    // The operands each kind cannot do without. Scalar FP rows stand for several instructions (a
    // square root reads one register, a divide two): one source for those.
    const struct {
        OpKind kind;
        bool dest;
        std::uint8_t sources;
    } operands[] = {
        {OpKind::VLoad, true, 0},     {OpKind::VStore, false, 1},      {OpKind::ScalarLoad, true, 0},
        {OpKind::Fma, true, 3},       {OpKind::Mul, true, 2},          {OpKind::Add, true, 2},
        {OpKind::Broadcast, true, 0}, {OpKind::Slide, true, 1},        {OpKind::Reduce, true, 1},
        {OpKind::SAdd, true, 1},      {OpKind::SMul, true, 1},         {OpKind::SCompare, true, 1},
        {OpKind::SShift, true, 1},    {OpKind::ScalarStore, false, 1}, {OpKind::VSetVl, true, 0},
        {OpKind::Gather, true, 2},    {OpKind::WidenFma, true, 2},     {OpKind::SegLoad, true, 0},
        {OpKind::SegStore, false, 1}, {OpKind::SDiv, true, 1},         {OpKind::FAdd, true, 1},
        {OpKind::FMul, true, 2},      {OpKind::FMadd, true, 3},        {OpKind::FDiv, true, 1},
        {OpKind::FCvt, true, 1},      {OpKind::FCmp, true, 1},         {OpKind::Max, true, 2},
        {OpKind::Min, true, 2},       {OpKind::Sub, true, 2},          {OpKind::Div, true, 2},
        {OpKind::Convert, true, 1},   {OpKind::Recip, true, 1}};
    for (const auto& o : operands) {
        rows[static_cast<std::size_t>(o.kind)].needsDest = o.dest;
        rows[static_cast<std::size_t>(o.kind)].sources = o.sources;
    }
    return rows;
}

bool spansSeveralGroups(RegisterSpan span) {
    return span == RegisterSpan::Widening || span == RegisterSpan::SegmentDest ||
           span == RegisterSpan::SegmentSource || span == RegisterSpan::Convert;
}

struct Table {
    std::deque<OpDescriptor> rows;  // stable addresses
    std::vector<std::string> timingNames;

    // What the table fills in a row: its primary class and span, then its variant class (apart,
    // so that built-in primary classes come first, numbered as their kinds).
    void completePrimary(OpDescriptor& d) {
        d.timingClass = timingClass(d.timing.empty() ? d.name : d.timing);
        d.multiGroupSpan = spansSeveralGroups(d.span);
    }
    void completeVariant(OpDescriptor& d) {
        if (d.variantWhen)
            d.variantClass = timingClass(d.variantTiming);
        if (d.secondVariantWhen)
            d.secondVariantClass = timingClass(d.secondVariantTiming);
    }

    TimingClass timingClass(const std::string& name) {
        for (std::size_t i = 0; i < timingNames.size(); ++i)
            if (timingNames[i] == name)
                return static_cast<TimingClass>(i);
        if (timingNames.size() > 0xFFFF)
            throw std::length_error("too many timing classes");
        timingNames.push_back(name);
        return static_cast<TimingClass>(timingNames.size() - 1);
    }
};

Table& table() {
    static Table t;
    return t;
}

// Primary classes first, in kind order (a built-in kind timed as itself has its kind as class
// index; max and min share add's), then variants.
std::vector<const OpDescriptor*> buildBuiltIns() {
    Table& t = table();
    std::vector<const OpDescriptor*> rows;
    for (OpDescriptor& d : builtInRows()) {
        if (static_cast<std::size_t>(d.kind) != t.rows.size())
            throw std::logic_error("built-in op rows must follow OpKind order");
        t.completePrimary(d);
        t.rows.push_back(std::move(d));
    }
    for (OpDescriptor& d : t.rows) {
        t.completeVariant(d);
        rows.push_back(&d);
    }
    return rows;
}

}  // namespace

namespace detail {
std::vector<const OpDescriptor*> gOpRows = buildBuiltIns();
}  // namespace detail

std::size_t opKindCount() {
    return detail::gOpRows.size();
}

bool isKnownOpKind(OpKind k) {
    return static_cast<std::size_t>(k) < detail::gOpRows.size();
}

const OpDescriptor* findOpKind(std::string_view name) {
    for (const OpDescriptor* d : detail::gOpRows)
        if (d->name == name)
            return d;
    return nullptr;
}

OpKind registerOpKind(OpDescriptor row) {
    if (row.name.empty())
        throw std::invalid_argument("an op kind needs a name");
    if (findOpKind(row.name))
        throw std::invalid_argument(fmt::format("op kind '{}' already exists", row.name));
    if ((row.variantWhen && row.variantTiming.empty()) ||
        (row.secondVariantWhen && row.secondVariantTiming.empty()))
        throw std::invalid_argument(fmt::format("op kind '{}': a timing variant needs a name", row.name));
    if (detail::gOpRows.size() > 0xFFFF)
        throw std::length_error("too many op kinds");
    Table& t = table();
    row.kind = static_cast<OpKind>(detail::gOpRows.size());
    t.completePrimary(row);
    t.completeVariant(row);
    t.rows.push_back(std::move(row));
    detail::gOpRows.push_back(&t.rows.back());
    return t.rows.back().kind;
}

std::size_t timingClassCount() {
    return table().timingNames.size();
}

std::string_view timingClassName(TimingClass c) {
    const auto& names = table().timingNames;
    return c < names.size() ? std::string_view(names[c]) : std::string_view("?");
}

bool findTimingClass(std::string_view name, TimingClass& out) {
    const auto& names = table().timingNames;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
            out = static_cast<TimingClass>(i);
            return true;
        }
    }
    return false;
}

const OpDescriptor* variantOwner(TimingClass c) {
    for (const OpDescriptor* d : detail::gOpRows)
        if ((d->variantWhen && d->variantClass == c) || (d->secondVariantWhen && d->secondVariantClass == c))
            return d;
    return nullptr;
}

}  // namespace tessim
