// Differential testing of the hart's RVV 1.0 against qemu-riscv64 (-cpu rv64,v=true,vlen=256): a
// generated program runs every implemented vector instruction form at several SEW/LMUL settings,
// masked and unmasked, on random register contents (FP edge cases among them), random vl, frm
// and vxrm, and writes after each one the destination registers v8–v15, a3, fa3, fflags, vxsat,
// vl and, for stores, the memory window; tessim's output must equal qemu's byte for byte.
// TESSIM_VECTOR_ITERATIONS=N runs N operand sets per variant (at most 512), TESSIM_VECTOR_SEED
// others (docs/programs.md: the longer run). The shards run the functional hart alone, in this
// process, on more operand sets: over 10^6 instructions in CI.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/riscv/ElfProgram.h"
#include "models/riscv/LinuxProcess.h"
#include "riscv/RiscvPrograms.h"

namespace tessim::test {
namespace {

constexpr unsigned kVectorOperandSets = 512;
constexpr unsigned kOperandBytes = 4 * 256 + 64;   // v8–15, v16–23, v24–31, v0 (32 B used); scalars
constexpr unsigned kVectorRecordBytes = 48 + 256;  // a3, fa3, fflags, vxsat, vl, pad; v8–v15
constexpr unsigned kWindowBytes = 1024;            // the memory a store variant records too

struct Variant {
    std::string text;  // assembly, its own vsetvli first
    bool store = false;
    std::string name;  // the instruction's mnemonic, for messages
};

struct VType {
    unsigned sew;  // bits
    const char* lmul;
    unsigned lmul8;
};
constexpr VType kVTypes[] = {{8, "m1", 8},   {8, "mf2", 4},  {8, "m8", 64},  {16, "m1", 8},
                             {16, "m4", 32}, {16, "mf4", 2}, {32, "m1", 8},  {32, "m2", 16},
                             {32, "mf2", 4}, {64, "m1", 8},  {64, "m8", 64}, {64, "m2", 16}};

std::string vset(unsigned sew, const char* lmul) {
    return fmt::format("vsetvli t0, a5, e{}, {}, ta, ma", sew, lmul);
}

std::vector<Variant> variants(std::mt19937_64& rng) {
    std::vector<Variant> out;
    auto pick = [&](auto accept) {
        std::vector<VType> ok;
        for (const VType& t : kVTypes)
            if (accept(t))
                ok.push_back(t);
        std::shuffle(ok.begin(), ok.end(), rng);
        ok.resize(std::min<std::size_t>(ok.size(), 3));
        return ok;
    };
    auto add = [&](const VType& t, const std::string& body, const std::string& name, bool store = false) {
        out.push_back({vset(t.sew, t.lmul) + "\n    " + body, store, name});
    };
    auto any = [](const VType&) { return true; };
    // Integer single width: name and forms (v, x, i).
    const std::pair<const char*, const char*> integer[] = {
        {"vadd", "vxi"},   {"vsub", "vx"},      {"vrsub", "xi"},    {"vminu", "vx"},      {"vmin", "vx"},
        {"vmaxu", "vx"},   {"vmax", "vx"},      {"vand", "vxi"},    {"vor", "vxi"},       {"vxor", "vxi"},
        {"vsll", "vxi"},   {"vsrl", "vxi"},     {"vsra", "vxi"},    {"vsaddu", "vxi"},    {"vsadd", "vxi"},
        {"vssubu", "vx"},  {"vssub", "vx"},     {"vsmul", "vx"},    {"vssrl", "vxi"},     {"vssra", "vxi"},
        {"vaaddu", "vx"},  {"vaadd", "vx"},     {"vasubu", "vx"},   {"vasub", "vx"},      {"vdivu", "vx"},
        {"vdiv", "vx"},    {"vremu", "vx"},     {"vrem", "vx"},     {"vmulhu", "vx"},     {"vmul", "vx"},
        {"vmulhsu", "vx"}, {"vmulh", "vx"},     {"vmadd", "vx"},    {"vnmsub", "vx"},     {"vmacc", "vx"},
        {"vnmsac", "vx"},  {"vrgather", "vxi"}, {"vslideup", "xi"}, {"vslidedown", "xi"}, {"vmseq", "vxi"},
        {"vmsne", "vxi"},  {"vmsltu", "vx"},    {"vmslt", "vx"},    {"vmsleu", "vxi"},    {"vmsle", "vxi"},
        {"vmsgtu", "xi"},  {"vmsgt", "xi"}};
    // .vi operands: uimm5 for shifts, slides and gathers; simm5 else (vmsgt[u].vi is vmsle[u].vi
    // with imm + 1, so at most 14 there).
    auto immediate = [&](const std::string& name) {
        static const int simm[] = {-16, -1, 0, 1, 7, 14};
        const bool unsignedImm =
            name.find("sll") != std::string::npos || name.find("srl") != std::string::npos ||
            name.find("sra") != std::string::npos || name.find("slide") != std::string::npos ||
            name.find("gather") != std::string::npos;
        return unsignedImm ? static_cast<int>(rng() % 32) : simm[rng() % 6];
    };
    for (const auto& [name, forms] : integer) {
        const bool accumulate = std::string(name).find("mac") != std::string::npos ||
                                std::string(name).find("madd") != std::string::npos ||
                                std::string(name).find("msub") != std::string::npos ||
                                std::string(name).find("msac") != std::string::npos;
        for (const VType& t : pick(any))
            for (const char* f = forms; *f; ++f)
                for (const char* mask : {"", ", v0.t"}) {
                    const std::string vd = "v8";
                    std::string ops;
                    if (*f == 'v')
                        ops = accumulate ? "v24, v16" : "v16, v24";
                    else if (*f == 'x')
                        ops = accumulate ? "a0, v16" : "v16, a0";
                    else
                        ops = fmt::format("v16, {}", immediate(name));
                    add(t, fmt::format("{}.v{} {}, {}{}", name, *f, vd, ops, mask), name);
                }
    }
    for (const VType& t : pick(any)) {
        for (const char* f : {"vv", "vx", "vi"}) {
            const std::string src = f[1] == 'v' ? "v24" : f[1] == 'x' ? "a0" : "-3";
            add(t, fmt::format("vmv.v.{} v8, {}", f[1], src), "vmv.v");
            add(t, fmt::format("vmerge.v{}m v8, v16, {}, v0", f[1], src), "vmerge");
            add(t, fmt::format("vadc.v{}m v8, v16, {}, v0", f[1], src), "vadc");
            add(t, fmt::format("vmadc.v{}m v8, v16, {}, v0", f[1], src), "vmadc");
            add(t, fmt::format("vmadc.v{} v8, v16, {}", f[1], src), "vmadc");
            if (f[1] != 'i') {
                add(t, fmt::format("vsbc.v{}m v8, v16, {}, v0", f[1], src), "vsbc");
                add(t, fmt::format("vmsbc.v{}m v8, v16, {}, v0", f[1], src), "vmsbc");
            }
        }
        for (const char* op :
             {"vredsum", "vredand", "vredor", "vredxor", "vredminu", "vredmin", "vredmaxu", "vredmax"})
            for (const char* mask : {"", ", v0.t"})
                add(t, fmt::format("{}.vs v8, v16, v24{}", op, mask), op);
        for (const char* op : {"vmandn", "vmand", "vmor", "vmxor", "vmorn", "vmnand", "vmnor", "vmxnor"})
            add(t, fmt::format("{}.mm v8, v16, v24", op), op);
        for (const char* mask : {"", ", v0.t"}) {
            add(t, fmt::format("vslide1up.vx v8, v16, a0{}", mask), "vslide1up");
            add(t, fmt::format("vslide1down.vx v8, v16, a0{}", mask), "vslide1down");
            add(t, fmt::format("vcpop.m a3, v16{}", mask), "vcpop");
            add(t, fmt::format("vfirst.m a3, v16{}", mask), "vfirst");
            add(t, fmt::format("vmsbf.m v8, v16{}", mask), "vmsbf");
            add(t, fmt::format("vmsof.m v8, v16{}", mask), "vmsof");
            add(t, fmt::format("vmsif.m v8, v16{}", mask), "vmsif");
            add(t, fmt::format("viota.m v8, v16{}", mask), "viota");
            add(t, fmt::format("vid.v v8{}", mask), "vid");
        }
        add(t, "vmv.x.s a3, v16", "vmv.x.s");
        add(t, "vmv.s.x v8, a0", "vmv.s.x");
        add(t, "vcompress.vm v8, v16, v24", "vcompress");
        if (16 * t.lmul8 / t.sew <= 64)  // the index EMUL (16/SEW · LMUL) at most 8
            add(t, "vrgatherei16.vv v8, v16, v24", "vrgatherei16");
        for (const char* nr : {"1", "2", "4", "8"})
            add(t, fmt::format("vmv{}r.v v8, v16", nr), "vmv<nr>r");
    }
    for (const VType& t : pick([](const VType& t) { return t.sew >= 16 && t.lmul8 >= 2; }))
        for (const char* mask : {"", ", v0.t"})
            for (const char* op : {"vzext.vf2", "vsext.vf2"})
                add(t, fmt::format("{} v8, v16{}", op, mask), op);
    for (const VType& t : pick([](const VType& t) { return t.sew >= 32 && t.lmul8 >= 4; }))
        for (const char* op : {"vzext.vf4", "vsext.vf4"})
            add(t, fmt::format("{} v8, v16, v0.t", op), op);
    for (const VType& t : pick([](const VType& t) { return t.sew == 64 && t.lmul8 >= 8; }))
        for (const char* op : {"vzext.vf8", "vsext.vf8"})
            add(t, fmt::format("{} v8, v16", op), op);
    // Widening and narrowing integer (SEW < 64, LMUL ≤ 4).
    for (const VType& t : pick([](const VType& t) { return t.sew < 64 && t.lmul8 <= 32; })) {
        for (const char* op : {"vwaddu", "vwadd", "vwsubu", "vwsub", "vwmulu", "vwmulsu", "vwmul"})
            for (const char* f : {"vv v8, v16, v24", "vx v8, v16, a0"})
                add(t, fmt::format("{}.{}, v0.t", op, f), op);
        for (const char* op : {"vwaddu", "vwadd", "vwsubu", "vwsub"})
            for (const char* f : {"wv v8, v16, v24", "wx v8, v16, a0"})
                add(t, fmt::format("{}.{}", op, f), op);
        for (const char* op : {"vwmaccu", "vwmacc", "vwmaccsu"})
            for (const char* f : {"vv v8, v24, v16", "vx v8, a0, v16"})
                add(t, fmt::format("{}.{}", op, f), op);
        add(t, "vwmaccus.vx v8, a0, v16, v0.t", "vwmaccus");
        for (const char* op : {"vnsrl", "vnsra", "vnclipu", "vnclip"})
            for (const char* f : {"wv v8, v16, v24", "wx v8, v16, a0", "wi v8, v16, 5"})
                add(t, fmt::format("{}.{}", op, f), op);
        for (const char* op : {"vwredsumu", "vwredsum"})
            add(t, fmt::format("{}.vs v8, v16, v24, v0.t", op), op);
    }
    // Floating point at SEW 32 and 64.
    const std::pair<const char*, const char*> fp[] = {
        {"vfadd", "vf"},   {"vfsub", "vf"},   {"vfrsub", "f"},   {"vfmul", "vf"},   {"vfdiv", "vf"},
        {"vfrdiv", "f"},   {"vfmin", "vf"},   {"vfmax", "vf"},   {"vfsgnj", "vf"},  {"vfsgnjn", "vf"},
        {"vfsgnjx", "vf"}, {"vfmadd", "vf"},  {"vfnmadd", "vf"}, {"vfmsub", "vf"},  {"vfnmsub", "vf"},
        {"vfmacc", "vf"},  {"vfnmacc", "vf"}, {"vfmsac", "vf"},  {"vfnmsac", "vf"}, {"vmfeq", "vf"},
        {"vmfle", "vf"},   {"vmflt", "vf"},   {"vmfne", "vf"},   {"vmfgt", "f"},    {"vmfge", "f"}};
    auto fpTypes = [](const VType& t) { return t.sew >= 16; };
    for (const auto& [name, forms] : fp) {
        const std::string n = name;
        const bool accumulate = n.find("mac") != std::string::npos || n.find("madd") != std::string::npos ||
                                n.find("msub") != std::string::npos || n.find("msac") != std::string::npos;
        for (const VType& t : pick(fpTypes))
            for (const char* f = forms; *f; ++f)
                for (const char* mask : {"", ", v0.t"}) {
                    const std::string ops = *f == 'v' ? (accumulate ? "v24, v16" : "v16, v24")
                                                      : (accumulate ? "fa0, v16" : "v16, fa0");
                    add(t, fmt::format("{}.v{} v8, {}{}", name, *f, ops, mask), name);
                }
    }
    for (const VType& t : pick(fpTypes)) {
        for (const char* op : {"vfredusum", "vfredosum", "vfredmin", "vfredmax"})
            for (const char* mask : {"", ", v0.t"})
                add(t, fmt::format("{}.vs v8, v16, v24{}", op, mask), op);
        for (const char* mask : {"", ", v0.t"}) {
            add(t, fmt::format("vfsqrt.v v8, v16{}", mask), "vfsqrt");
            add(t, fmt::format("vfrsqrt7.v v8, v16{}", mask), "vfrsqrt7");
            add(t, fmt::format("vfrec7.v v8, v16{}", mask), "vfrec7");
            add(t, fmt::format("vfclass.v v8, v16{}", mask), "vfclass");
            add(t, fmt::format("vfslide1up.vf v8, v16, fa0{}", mask), "vfslide1up");
            add(t, fmt::format("vfslide1down.vf v8, v16, fa0{}", mask), "vfslide1down");
        }
        add(t, "vfmv.f.s fa3, v16", "vfmv.f.s");
        add(t, "vfmv.s.f v8, fa0", "vfmv.s.f");
        add(t, "vfmv.v.f v8, fa0", "vfmv.v.f");
        add(t, "vfmerge.vfm v8, v16, fa0, v0", "vfmerge");
    }
    // Widening FP (SEW 16 → 32, 32 → 64) and the conversions.
    for (const VType& t :
         pick([](const VType& t) { return (t.sew == 16 || t.sew == 32) && t.lmul8 <= 32; })) {
        for (const char* op : {"vfwadd", "vfwsub", "vfwmul"})
            for (const char* f : {"vv v8, v16, v24", "vf v8, v16, fa0"})
                add(t, fmt::format("{}.{}, v0.t", op, f), op);
        for (const char* op : {"vfwadd", "vfwsub"})
            for (const char* f : {"wv v8, v16, v24", "wf v8, v16, fa0"})
                add(t, fmt::format("{}.{}", op, f), op);
        for (const char* op : {"vfwmacc", "vfwnmacc", "vfwmsac", "vfwnmsac"})
            for (const char* f : {"vv v8, v24, v16", "vf v8, fa0, v16"})
                add(t, fmt::format("{}.{}", op, f), op);
        for (const char* op : {"vfwredusum", "vfwredosum"})
            add(t, fmt::format("{}.vs v8, v16, v24, v0.t", op), op);
        for (const char* op : {"vfwcvt.xu.f.v", "vfwcvt.x.f.v", "vfwcvt.f.f.v", "vfwcvt.f.xu.v",
                               "vfwcvt.f.x.v", "vfncvt.f.xu.w", "vfncvt.f.x.w", "vfncvt.f.f.w",
                               "vfncvt.rod.f.f.w", "vfncvt.xu.f.w", "vfncvt.x.f.w"})
            add(t, fmt::format("{} v8, v16, v0.t", op), op);
    }
    for (const VType& t : pick([](const VType& t) { return t.sew == 8 && t.lmul8 <= 32; }))
        for (const char* op : {"vfwcvt.f.xu.v", "vfwcvt.f.x.v", "vfncvt.xu.f.w", "vfncvt.x.f.w"})
            add(t, fmt::format("{} v8, v16", op), op);
    for (const VType& t : pick(fpTypes))
        for (const char* op : {"vfcvt.xu.f.v", "vfcvt.x.f.v", "vfcvt.f.xu.v", "vfcvt.f.x.v"})
            for (const char* mask : {"", ", v0.t"})
                add(t, fmt::format("{} v8, v16{}", op, mask), op);
    // Loads and stores from t2 (in the window); a4 a small stride; indices masked into the window.
    for (unsigned eew : {8u, 16u, 32u, 64u}) {
        for (const VType& t : pick([&](const VType& t) {
                 const unsigned emul8 = eew * t.lmul8 / t.sew;
                 return emul8 >= 1 && emul8 <= 8;  // EMUL ≤ 1 keeps every access in the window
             })) {
            for (const char* mask : {"", ", v0.t"}) {
                add(t, fmt::format("vle{}.v v8, (t2){}", eew, mask), "vle");
                add(t, fmt::format("vle{}ff.v v8, (t2){}", eew, mask), "vleff");
                add(t, fmt::format("vlse{}.v v8, (t2), a4{}", eew, mask), "vlse");
                add(t, fmt::format("vse{}.v v24, (t2){}", eew, mask), "vse", true);
                add(t, fmt::format("vsse{}.v v24, (t2), a4{}", eew, mask), "vsse", true);
                for (unsigned nf : {2u, 3u, 4u})
                    if (nf * std::max(1u, eew * t.lmul8 / t.sew / 8) <= 8) {
                        add(t, fmt::format("vlseg{}e{}.v v8, (t2){}", nf, eew, mask), "vlseg");
                        add(t, fmt::format("vsseg{}e{}.v v16, (t2){}", nf, eew, mask), "vsseg", true);
                        add(t, fmt::format("vlsseg{}e{}.v v8, (t2), a4{}", nf, eew, mask), "vlsseg");
                    }
            }
        }
        // Indexed: the indices (EEW) masked to 0..504, aligned to 8, at the data's SEW/LMUL.
        for (const VType& t : pick([&](const VType& t) {
                 const unsigned emul8 = eew * t.lmul8 / t.sew;
                 return emul8 >= 1 && emul8 <= 8 && t.lmul8 <= 8;
             })) {
            const unsigned emul8 = eew * t.lmul8 / t.sew;
            const std::string emul =
                emul8 >= 8 ? fmt::format("m{}", emul8 / 8) : fmt::format("mf{}", 8 / emul8);
            const std::string prepare = fmt::format("vsetvli t0, a5, e{}, {}, ta, ma\n    li t6, 504\n"
                                                    "    vand.vx v24, v24, t6\n    ",
                                                    eew, emul);
            for (const char* kind : {"ux", "ox"}) {
                out.push_back({prepare + vset(t.sew, t.lmul) +
                                   fmt::format("\n    vl{}ei{}.v v8, (t2), v24, v0.t", kind, eew),
                               false, "vlxei"});
                out.push_back({prepare + vset(t.sew, t.lmul) +
                                   fmt::format("\n    vs{}ei{}.v v16, (t2), v24", kind, eew),
                               true, "vsxei"});
            }
        }
        for (unsigned nf : {1u, 2u, 4u, 8u})
            out.push_back(
                {vset(32, "m1") + fmt::format("\n    vl{}re{}.v v8, (t2)", nf, eew), false, "vlre"});
    }
    for (unsigned nf : {1u, 2u, 4u, 8u})
        out.push_back({vset(8, "m1") + fmt::format("\n    vs{}r.v v16, (t2)", nf), true, "vsr"});
    out.push_back({vset(8, "m4") + "\n    vlm.v v8, (t2)", false, "vlm"});
    out.push_back({vset(16, "m8") + "\n    vsm.v v16, (t2)", true, "vsm"});
    return out;
}

// Register contents: random bytes, with FP edge cases and small integers mixed in per 8 bytes.
std::uint64_t chunk(std::mt19937_64& rng) {
    static const std::uint64_t doubles[] = {0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000,
                                            0xfff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001,
                                            0x0000000000000001, 0x3ff0000000000000, 0xbff0000000000000,
                                            0x3ff8000000000000, 0x7fefffffffffffff, 0x0010000000000000};
    static const std::uint32_t singles[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                            0x7f800001, 0x00000001, 0x3f800000, 0xbf800000, 0x3fc00000,
                                            0x7f7fffff, 0x00800000, 0x4b000000, 0x3f000000};
    auto single = [&] {
        switch (rng() % 3) {
        case 0: return singles[rng() % (sizeof singles / 4)];
        case 1: return static_cast<std::uint32_t>((rng() & 0x807fffffu) | ((120 + rng() % 16) << 23));
        default: return static_cast<std::uint32_t>(rng());
        }
    };
    static const std::uint16_t halves[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0x0001, 0x03ff,
                                           0x0400, 0x3c00, 0xbc00, 0x3e00, 0x7bff, 0x5640, 0xd640, 0x6400};
    auto half = [&]() -> std::uint64_t {
        return rng() % 2 ? halves[rng() % 16] : (rng() & 0x83ff) | ((8 + rng() % 16) << 10);
    };
    switch (rng() % 7) {
    case 6: return half() | (half() << 16) | (half() << 32) | (half() << 48);
    case 0: return rng();
    case 1: return doubles[rng() % (sizeof doubles / 8)];
    case 2: return (rng() & 0x800fffffffffffffull) | ((1020 + rng() % 8) << 52);
    case 3: return single() | (std::uint64_t{single()} << 32);
    case 4: return rng() % 5 == 0 ? ~0ull : rng() & 0x0101010101010101ull * (rng() % 256);
    default:
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(rng() % 9) - 4) * 0x0001000100010001ull;
    }
}

std::string program(const std::vector<Variant>& vs, unsigned iterations, std::mt19937_64& rng) {
    std::string s = "    .globl _start\n    .text\n_start:\n    lla s1, records\n    lla s3, window\n";
    for (std::size_t k = 0; k < vs.size(); ++k) {
        const unsigned first = static_cast<unsigned>((k * 131) % (kVectorOperandSets - iterations + 1));
        s += fmt::format("# {}\n    lla s0, operands + {}\n    li s2, {}\n1:\n", vs[k].name,
                         first * kOperandBytes, iterations);
        s +=
            "    vsetvli t0, zero, e8, m8, ta, ma\n    mv t1, s0\n    vle8.v v8, (t1)\n    addi t1, t1, 256\n"
            "    vle8.v v16, (t1)\n    addi t1, t1, 256\n    vle8.v v24, (t1)\n    addi t1, t1, 256\n"
            "    vsetvli t0, zero, e8, m1, ta, ma\n    vle8.v v0, (t1)\n"
            "    ld a0, 1024(s0)\n    ld a1, 1032(s0)\n    ld a5, 1040(s0)\n    ld t0, 1048(s0)\n"
            "    fmv.d.x fa0, a1\n    andi a4, a1, 16\n    andi t2, a0, 248\n    add t2, t2, s3\n"
            "    andi t1, t0, 7\n    fsrm t1\n    srli t1, t0, 3\n    csrw vxrm, t1\n    fsflags zero\n"
            "    csrw vxsat, zero\n    li a3, 0\n    fmv.d.x fa3, zero\n";
        s += "    " + vs[k].text + "\n";
        s += "    frflags t3\n    csrr t4, vxsat\n    csrr t5, vl\n    fmv.x.d t6, fa3\n"
             "    sd a3, 0(s1)\n    sd t6, 8(s1)\n    sd t3, 16(s1)\n    sd t4, 24(s1)\n    sd t5, 32(s1)\n"
             "    addi s1, s1, 48\n    vs8r.v v8, (s1)\n    addi s1, s1, 256\n";
        if (vs[k].store)
            s += "    mv t1, s3\n    li t3, 4\n2:\n    vl8re8.v v8, (t1)\n    vs8r.v v8, (s1)\n"
                 "    addi t1, t1, 256\n    addi s1, s1, 256\n    addi t3, t3, -1\n    bnez t3, 2b\n";
        s += "    addi s0, s0, " + std::to_string(kOperandBytes) + "\n    addi s2, s2, -1\n    bnez s2, 1b\n";
    }
    std::size_t bytes = 0;
    for (const Variant& v : vs)
        bytes += std::size_t{iterations} * (kVectorRecordBytes + (v.store ? kWindowBytes : 0));
    s += fmt::format("    lla a1, records\n    li a2, {}\n3:\n    li a0, 1\n    li a7, 64\n    ecall\n"
                     "    blez a0, 4f\n    add a1, a1, a0\n    sub a2, a2, a0\n    bnez a2, 3b\n"
                     "4:\n    li a0, 0\n    li a7, 93\n    ecall\n",
                     bytes);
    s += "    .data\n    .balign 8\noperands:\n";
    for (unsigned i = 0; i < kVectorOperandSets; ++i) {
        for (unsigned q = 0; q < 1024 / 8; ++q)
            s += fmt::format("    .quad {:#x}\n", chunk(rng));
        const std::uint64_t avl = rng() % 4 == 0 ? rng() % 300 : rng() % 40;
        s += fmt::format("    .quad {:#x}, {:#x}, {}, {}\n", chunk(rng), chunk(rng), avl,
                         (rng() % 5) | ((rng() % 4) << 3));  // frm RNE…RMM, vxrm
        s += "    .quad 0, 0, 0, 0\n";
    }
    s += "window:\n";
    for (unsigned i = 0; i < (kWindowBytes + 512) / 8; ++i)
        s += fmt::format("    .quad {:#x}\n", chunk(rng));
    s += fmt::format("    .bss\n    .balign 8\nrecords:\n    .zero {}\n", bytes);
    return s;
}

// The program a seed gives (`iterations` operand sets per variant, at most kVectorOperandSets), built.
struct Generated {
    std::vector<Variant> variants;
    unsigned iterations;
    std::string binary;
};

Generated generate(std::uint64_t seed, unsigned iterations, const std::string& name) {
    std::mt19937_64 rng(seed);
    Generated g{variants(rng), std::min(iterations, kVectorOperandSets), {}};
    const std::string source = scratchDirectory() + "/" + name + ".S";
    std::ofstream(source) << program(g.variants, g.iterations, rng);
    g.binary = buildProgram(source, "-march=rv64gcv -nostdlib -static");
    return g;
}

// tessim's records against qemu's, the first ten differences named by instruction and operand set.
void compareRecords(const Generated& g, const std::string& got, const std::string& want) {
    ASSERT_EQ(got.size(), want.size());
    std::cout << g.variants.size() << " variants x " << g.iterations
              << " operand sets = " << g.variants.size() * g.iterations
              << " vector instructions under test\n";
    std::size_t at = 0;
    unsigned reported = 0;
    for (const Variant& v : g.variants)
        for (unsigned it = 0; it < g.iterations; ++it) {
            const std::size_t n = kVectorRecordBytes + (v.store ? kWindowBytes : 0);
            if (reported < 10 && got.compare(at, n, want, at, n) != 0) {
                std::size_t d = 0;
                while (got[at + d] == want[at + d])
                    ++d;
                ADD_FAILURE() << "`" << v.text << "` operand set " << it << ": first difference at byte " << d
                              << " of the record (0 a3, 8 fa3, 16 fflags, 24 vxsat, 32 vl, 48… v8–v15, 304… "
                                 "memory): tessim "
                              << fmt::format("{:#04x}", static_cast<unsigned char>(got[at + d])) << ", qemu "
                              << fmt::format("{:#04x}", static_cast<unsigned char>(want[at + d]));
                ++reported;
            }
            at += n;
        }
}

// Through `tessim run`: the functional hart and the timing model together (the engine times
// every instruction and must not disturb what the program computes).
TEST(VectorDifferential, EveryVectorFormMatchesQemuOnRandomOperands) {
    unsigned iterations = 64;
    if (const char* env = std::getenv("TESSIM_VECTOR_ITERATIONS"))
        iterations = static_cast<unsigned>(std::strtoul(env, nullptr, 10));
    std::uint64_t seed = 20261204;
    if (const char* env = std::getenv("TESSIM_VECTOR_SEED"))
        seed = std::strtoull(env, nullptr, 10);
    const Generated g = generate(seed, iterations, "vector-differential");
    const ProcessResult want = runCommand(std::string(kQemuVector) + " " + g.binary);
    const ProcessResult got = runProgram(g.binary);
    ASSERT_EQ(want.exitCode, 0) << want.err;
    ASSERT_EQ(got.exitCode, 0) << got.err;
    EXPECT_GE(g.variants.size() * g.iterations, 50000u);
    compareRecords(g, got.out, want.out);
}

// The functional hart alone, in this process (no timing model: what a timed run costs under the
// sanitizers would not fit CI), on more operand sets: the shards together compare over 10^6
// instructions with qemu's.
class VectorDifferentialShard : public ::testing::TestWithParam<unsigned> {};

std::string runFunctionally(const std::string& binary, const std::string& output) {
    const riscv::ElfProgram elf = riscv::loadElfProgram(binary);
    riscv::LinuxProcess process(elf, {}, {}, 4ull << 30);
    const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(fd, 0) << output;
    process.setStdoutFd(fd);
    riscv::Retired r;
    while (!process.exited())
        process.hart().step(r);
    ::close(fd);
    EXPECT_EQ(process.exitStatus(), 0);
    std::ifstream in(output, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_P(VectorDifferentialShard, FunctionalHartMatchesQemu) {
    const unsigned shard = GetParam();
    const Generated g = generate(20261206 + shard, 280, fmt::format("vector-shard-{}", shard));
    const ProcessResult want = runCommand(std::string(kQemuVector) + " " + g.binary);
    ASSERT_EQ(want.exitCode, 0) << want.err;
    const std::string got =
        runFunctionally(g.binary, scratchDirectory() + fmt::format("/shard-{}.out", shard));
    EXPECT_GE(g.variants.size() * g.iterations, 500000u);  // two shards: over 10^6
    compareRecords(g, got, want.out);
}

INSTANTIATE_TEST_SUITE_P(Seeds, VectorDifferentialShard, ::testing::Values(0u, 1u));

// qemu 7.2 aborts on the rtz conversions (an assertion in its translator), so they are checked
// against their dynamic-rounding forms, which VectorDifferential compares with qemu: under frm =
// RTZ each must give the same elements and flags, and under the other modes (drawn per operand set)
// the rtz form must still round towards zero. tessim only.
TEST(VectorDifferential, RtzConversionsEqualTheDynamicFormsUnderRtz) {
    std::mt19937_64 rng(20261205);
    struct Pair {
        const char* rtz;
        const char* dynamic;
        unsigned sew;
    };
    std::vector<Pair> pairs;
    for (unsigned sew : {16u, 32u, 64u}) {
        pairs.push_back({"vfcvt.rtz.xu.f.v", "vfcvt.xu.f.v", sew});
        pairs.push_back({"vfcvt.rtz.x.f.v", "vfcvt.x.f.v", sew});
    }
    for (unsigned sew : {16u, 32u}) {
        pairs.push_back({"vfwcvt.rtz.xu.f.v", "vfwcvt.xu.f.v", sew});
        pairs.push_back({"vfwcvt.rtz.x.f.v", "vfwcvt.x.f.v", sew});
    }
    for (unsigned sew : {8u, 16u, 32u}) {
        pairs.push_back({"vfncvt.rtz.xu.f.w", "vfncvt.xu.f.w", sew});
        pairs.push_back({"vfncvt.rtz.x.f.w", "vfncvt.x.f.w", sew});
    }
    constexpr unsigned kSets = 64, kRecord = 144;
    std::string p = "    .globl _start\n    .text\n_start:\n    lla s1, records\n";
    for (const Pair& pair : pairs) {
        p += fmt::format("# {}\n    lla s0, operands\n    li s2, {}\n1:\n", pair.rtz, kSets);
        p += "    vsetvli t0, zero, e8, m8, ta, ma\n    vle8.v v8, (s0)\n    addi t1, s0, 256\n"
             "    vle8.v v16, (t1)\n    vmv4r.v v12, v8\n    ld a5, 512(s0)\n    ld t2, 520(s0)\n";
        p += fmt::format("    vsetvli t0, a5, e{}, m1, ta, ma\n", pair.sew);
        p += fmt::format("    fsrm t2\n    fsflags zero\n    {} v8, v16\n    frflags t3\n"
                         "    fsrmi 1\n    fsflags zero\n    {} v12, v16\n    frflags t4\n",
                         pair.rtz, pair.dynamic);
        p += "    vsetvli t0, zero, e8, m2, ta, ma\n    vse8.v v8, (s1)\n    addi t1, s1, 64\n"
             "    vse8.v v12, (t1)\n    sd t3, 128(s1)\n    sd t4, 136(s1)\n    addi s1, s1, 144\n"
             "    addi s0, s0, 528\n    addi s2, s2, -1\n    bnez s2, 1b\n";
    }
    p += fmt::format("    lla a1, records\n    li a2, {}\n3:\n    li a0, 1\n    li a7, 64\n    ecall\n"
                     "    blez a0, 4f\n    add a1, a1, a0\n    sub a2, a2, a0\n    bnez a2, 3b\n"
                     "4:\n    li a0, 0\n    li a7, 93\n    ecall\n    .data\n    .balign 8\noperands:\n",
                     pairs.size() * kSets * kRecord);
    for (unsigned i = 0; i < kSets; ++i) {
        for (unsigned q = 0; q < 512 / 8; ++q)
            p += fmt::format("    .quad {:#x}\n", chunk(rng));
        p += fmt::format("    .quad {}, {}\n", rng() % 40, rng() % 5);
    }
    p += fmt::format("    .bss\n    .balign 8\nrecords:\n    .zero {}\n", pairs.size() * kSets * kRecord);
    const std::string source = scratchDirectory() + "/rtz.S";
    std::ofstream(source) << p;
    const ProcessResult got = runProgram(buildProgram(source, "-march=rv64gcv -nostdlib -static"));
    ASSERT_EQ(got.exitCode, 0) << got.err;
    ASSERT_EQ(got.out.size(), pairs.size() * kSets * kRecord);
    unsigned inexact = 0, reported = 0;
    for (std::size_t r = 0; r < pairs.size() * kSets && reported < 10; ++r) {
        const std::size_t at = r * kRecord;
        if (got.out.compare(at, 64, got.out, at + 64, 64) != 0 ||
            got.out.compare(at + 128, 8, got.out, at + 136, 8) != 0) {
            ADD_FAILURE() << pairs[r / kSets].rtz << " at e" << pairs[r / kSets].sew << ", operand set "
                          << r % kSets << ": differs from " << pairs[r / kSets].dynamic << " under frm = rtz";
            ++reported;
        }
        inexact += got.out[at + 128] & 1;
    }
    EXPECT_GT(inexact, 100u);  // the operands do round
}

}  // namespace
}  // namespace tessim::test
