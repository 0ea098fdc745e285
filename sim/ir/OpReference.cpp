#include "sim/ir/OpReference.h"

#include <algorithm>

#include <fmt/format.h>

namespace tessim {
namespace {

const OpField kDType{"dtype", "i8 i16 i32 f16 f32 f64", "default f32", "element type", "\"f32\""};

// The registers a kind must name are required: its destination and first sources, in their
// vector form for a vector op and scalar form for a scalar one (the other form may replace it).
void registers(std::vector<OpField>& out, const OpDescriptor& d) {
    auto presence = [&](bool needed, bool vectorForm) {
        return needed && vectorForm == !d.scalar ? "required" : "optional";
    };
    out.push_back(kDType);
    out.push_back({"vd", "register", presence(d.needsDest, true), "destination vector register", "1"});
    out.push_back({"sd", "register", presence(d.needsDest, false),
                   "destination scalar register (in place of vd)", "1"});
    for (int i = 0; i < 3; ++i) {
        out.push_back({fmt::format("vs{}", i), "register", presence(i < d.sources, true),
                       fmt::format("source {}, a vector register", i), "2"});
        out.push_back({fmt::format("ss{}", i), "register", presence(i < d.sources, false),
                       fmt::format("source {}, a scalar register (splat over vl for a vector op)", i), "2"});
    }
    out.push_back({"vl", "integer", "default 0", "elements", "4"});
}

void memory(std::vector<OpField>& out, bool segment) {
    out.push_back({"mem", "memory", "required", "memory the bytes lie in", "\"$mem\""});
    out.push_back({"addr", "integer", "required", "byte offset in mem", "0"});
    if (segment) {
        out.push_back({"nf", "integer 1..8", "required", "fields of a segment", "2"});
        out.push_back({"stride", "integer", "default 0", "0 only: segments are unit stride", "0"});
    } else {
        out.push_back({"stride", "integer", "default 0", "bytes between elements; 0 = unit stride", "8"});
    }
    out.push_back(
        {"saddr", "register", "optional", "scalar register the address comes from (waited for)", "3"});
}

void macTile(std::vector<OpField>& out) {
    out.push_back(kDType);
    out.push_back({"mem", "memory", "required", "scratchpad holding the tile's tensors", "\"$mem\""});
    for (const char* f : {"in", "weights", "out"})
        out.push_back({f, "integer", "required", fmt::format("byte offset of the {} tensor", f), "0"});
    out.push_back({"channels", "integer", "required", "input channels", "1"});
    out.push_back({"filters", "integer", "required", "output channels", "1"});
    for (const char* f : {"in_h", "in_w", "out_h", "out_w", "kh", "kw"})
        out.push_back({f, "integer", "required", "tile and kernel extents", "1"});
    out.push_back({"stride", "integer", "default 1", "convolution stride, rows and columns", "1"});
    out.push_back({"stride_h", "integer", "default stride", "input rows between output rows", "1"});
    out.push_back({"stride_w", "integer", "default stride", "input columns between output columns", "1"});
    out.push_back({"pad", "integer", "default 0", "padding (materialised by the schedule)", "0"});
    out.push_back({"accumulate", "boolean", "default false", "add into existing partial sums", "true"});
    out.push_back(
        {"in_array", "boolean", "default false",
         "partial sums stay in the array's accumulators (target: units.<mac>.accumulators), not at out",
         "false"});
    out.push_back({"drain", "boolean", "default false",
                   "with in_array: write the INT32 results to out after the tile", "false"});
    out.push_back({"ideal_operands", "boolean", "default false",
                   "operands reach the array at its own rate, without memory accesses", "true"});
    out.push_back(
        {"requantize", "boolean", "default false", "also write INT8 outputs at out8 (needs out8)", "false"});
    out.push_back({"multiplier", "integer", "default 1", "requantisation multiplier", "3"});
    out.push_back({"shift", "integer 0..63", "default 0", "requantisation right shift", "2"});
    out.push_back({"out8", "integer", "optional", "byte offset of the INT8 outputs", "64"});
}

void transfer(std::vector<OpField>& out) {
    out.push_back({"tag", "integer", "required", "completion tag (dma_wait)", "1"});
    out.push_back({"channel", "integer", "default 0", "DMA channel of the engine", "0"});
    out.push_back({"src_mem", "memory", "required", "source memory", "\"$mem\""});
    out.push_back({"src", "integer", "required", "source byte offset", "0"});
    out.push_back({"dst_mem", "memory", "required", "destination memory", "\"$mem\""});
    out.push_back({"dst", "integer", "required", "destination byte offset", "64"});
    out.push_back({"row_bytes", "integer", "required", "contiguous bytes of a row (≥ 1)", "16"});
    out.push_back({"rows", "integer", "default 1", "rows of a plane", "2"});
    out.push_back({"planes", "integer", "default 1", "planes", "1"});
    out.push_back({"src_row_stride", "integer", "default row_bytes", "source bytes between rows", "16"});
    out.push_back({"src_plane_stride", "integer", "default 0", "source bytes between planes", "0"});
    out.push_back({"dst_row_stride", "integer", "default row_bytes", "destination bytes between rows", "16"});
    out.push_back({"dst_plane_stride", "integer", "default 0", "destination bytes between planes", "0"});
    out.push_back({"multicast", "integer", "default 0", "extra destinations dst + i·multicast_stride", "0"});
    out.push_back({"multicast_stride", "integer", "default 0", "bytes between multicast destinations", "0"});
    out.push_back({"group", "multicast group", "optional", "write the same offset in every member memory",
                   "\"$group\""});
}

std::string_view footprintName(FootprintRule r) {
    switch (r) {
    case FootprintRule::None: return "—";
    case FootprintRule::ElementsRead: return "reads its elements";
    case FootprintRule::ElementsWritten: return "writes its elements";
    case FootprintRule::Transfer: return "source rows read, destination rows written";
    case FootprintRule::MacTile: return "inputs and weights read, outputs written";
    }
    return "?";
}

std::string escapeCell(std::string text) {
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else
            out += c;
    }
    return out;
}

}  // namespace

std::string_view opClassName(OpClass c) {
    switch (c) {
    case OpClass::Compute: return "compute";
    case OpClass::Scalar: return "scalar";
    case OpClass::Memory: return "memory";
    case OpClass::Transfer: return "transfer";
    case OpClass::Sync: return "sync";
    case OpClass::Mark: return "mark";
    }
    return "?";
}

std::vector<OpField> opFields(const OpDescriptor& d) {
    std::vector<OpField> out;
    switch (d.layout) {
    case OpLayout::Registers:
        registers(out, d);
        if (d.memory)
            memory(out, d.segment);
        if (d.immediate != Immediate::None)
            out.push_back(
                {"imm", "number", "default 0",
                 d.immediate == Immediate::Always ? "immediate operand" : "second source when ss1 is absent",
                 "2"});
        if (d.lmul)
            out.push_back({"lmul", "1 2 4 8", "default 1", "register group (LMUL)", "2"});
        if (d.ordered)
            out.push_back({"ordered", "boolean", "default false", "strictly in element order", "true"});
        if (d.span == RegisterSpan::Convert)
            out.push_back({"from", "i8 i16 i32 f16 f32 f64", "required", "the source's type", "\"f32\""});
        break;
    case OpLayout::Branch:
        out.push_back(kDType);
        out.push_back(
            {"ss0", "register", "optional", "the loop condition (checked in functional runs)", "2"});
        out.push_back({"taken", "boolean", "required", "the branch jumps back", "false"});
        break;
    case OpLayout::MacTile: macTile(out); break;
    case OpLayout::Transfer: transfer(out); break;
    case OpLayout::TagWait:
        out.push_back({"tag", "integer", "required", "the DMA tag waited for", "1"});
        break;
    case OpLayout::Rendezvous:
        out.push_back({"id", "integer", "required", "barrier or event id", "1"});
        out.push_back({"count", "integer", "required", "participants, or signals waited for", "1"});
        break;
    case OpLayout::Signal: out.push_back({"id", "integer", "required", "event id", "1"}); break;
    case OpLayout::Bare: break;
    case OpLayout::Mark:
        out.push_back({"mark", "integer", "default 0", "layer mark (0: a filler slot)", "2"});
        break;
    }
    return out;
}

std::string opReferenceMarkdown() {
    std::string md =
        "# Op reference\n\n"
        "Generated from the op-descriptor table (`sim/ir/OpTable.cpp`) by `build/tessim list ops "
        "--reference`;\na test fails when this page is stale. A schedule is JSON Lines: a header, then one "
        "op "
        "per line,\n`{\"engine\": NAME, \"op\": KIND, ...}`, and `\"bundle\": true` opens a VLIW bundle. A "
        "field not listed\nfor its kind is an error.\n\n"
        "Class says how an engine issues the op: `compute` and `scalar` to a compute unit (scalar: one\n"
        "element whatever `vl` says), `memory` to a load/store unit, `transfer` to the DMA, `sync` waits\n"
        "or signals, `mark` does no work. A unit times the kinds whose timing class its `ops:` table\n"
        "names; a variant class (in brackets) times the op when its flag asks for it and the unit\n"
        "names it, else the op costs as its primary class.\n\n"
        "| op | class | fields | footprint | timing class | what it does |\n"
        "|---|---|---|---|---|---|\n";
    std::vector<OpField> all;
    for (std::size_t k = 0; k < opKindCount(); ++k) {
        const OpDescriptor& d = opInfo(static_cast<OpKind>(k));
        std::string fields;
        const std::vector<OpField> listed = opFields(d);
        for (std::size_t i = 0; i < listed.size(); ++i) {
            const OpField& f = listed[i];
            // A vector register and its scalar alternative (vd, sd) share one entry: vd/sd.
            const bool pair = f.type == "register" && i + 1 < listed.size() && f.name[0] == 'v' &&
                              listed[i + 1].name == "s" + f.name.substr(1);
            const bool alternative =  // printed with its vector form
                i > 0 && f.type == "register" && f.name[0] == 's' &&
                listed[i - 1].name == "v" + f.name.substr(1);
            const bool required = f.presence == "required" || (pair && listed[i + 1].presence == "required");
            if (!alternative)
                fields += (fields.empty() ? "" : ", ") + std::string(required ? "**" : "") + f.name +
                          (pair ? "/" + listed[i + 1].name : "") + (required ? "**" : "");
            const bool seen = std::any_of(all.begin(), all.end(), [&](const OpField& g) {
                return g.name == f.name && g.type == f.type && g.presence == f.presence &&
                       g.meaning == f.meaning;
            });
            if (!seen)
                all.push_back(f);
        }
        std::string timing = std::string(timingClassName(d.timingClass));
        if (d.variantWhen)
            timing += fmt::format(" [{}]", timingClassName(d.variantClass));
        if (d.secondVariantWhen)
            timing += fmt::format(" [{}]", timingClassName(d.secondVariantClass));
        md += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", d.name, opClassName(d.opClass),
                          fields.empty() ? "—" : fields, footprintName(d.footprint), timing,
                          escapeCell(d.summary));
    }
    md += "\nFields in **bold** are required.\n\n| field | type | presence | meaning |\n|---|---|---|---|\n";
    for (const OpField& f : all)
        md += fmt::format("| `{}` | {} | {} | {} |\n", f.name, f.type, f.presence, f.meaning);
    return md;
}

}  // namespace tessim
