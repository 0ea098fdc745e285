// Names of vector instructions (the RVV 1.0 specification's tables of funct6 by category) and
// the vtype decoding.
#include <fmt/format.h>

#include "models/riscv/RiscvVector.h"

namespace tessim::riscv {

namespace {

struct Named {
    unsigned funct6;
    const char* name;
};
// By funct6 (the specification's opcode tables); a funct6 not listed is reserved in that category.
constexpr Named kInteger[] = {
    {0x00, "vadd"},      {0x02, "vsub"},     {0x03, "vrsub"},      {0x04, "vminu"},   {0x05, "vmin"},
    {0x06, "vmaxu"},     {0x07, "vmax"},     {0x09, "vand"},       {0x0a, "vor"},     {0x0b, "vxor"},
    {0x0c, "vrgather"},  {0x0e, "vslideup"}, {0x0f, "vslidedown"}, {0x10, "vadc"},    {0x11, "vmadc"},
    {0x12, "vsbc"},      {0x13, "vmsbc"},    {0x17, "vmerge"},     {0x18, "vmseq"},   {0x19, "vmsne"},
    {0x1a, "vmsltu"},    {0x1b, "vmslt"},    {0x1c, "vmsleu"},     {0x1d, "vmsle"},   {0x1e, "vmsgtu"},
    {0x1f, "vmsgt"},     {0x20, "vsaddu"},   {0x21, "vsadd"},      {0x22, "vssubu"},  {0x23, "vssub"},
    {0x25, "vsll"},      {0x27, "vsmul"},    {0x28, "vsrl"},       {0x29, "vsra"},    {0x2a, "vssrl"},
    {0x2b, "vssra"},     {0x2c, "vnsrl"},    {0x2d, "vnsra"},      {0x2e, "vnclipu"}, {0x2f, "vnclip"},
    {0x30, "vwredsumu"}, {0x31, "vwredsum"}};
constexpr Named kMask[] = {
    {0x00, "vredsum"}, {0x01, "vredand"},  {0x02, "vredor"},    {0x03, "vredxor"},     {0x04, "vredminu"},
    {0x05, "vredmin"}, {0x06, "vredmaxu"}, {0x07, "vredmax"},   {0x08, "vaaddu"},      {0x09, "vaadd"},
    {0x0a, "vasubu"},  {0x0b, "vasub"},    {0x0e, "vslide1up"}, {0x0f, "vslide1down"}, {0x17, "vcompress"},
    {0x18, "vmandn"},  {0x19, "vmand"},    {0x1a, "vmor"},      {0x1b, "vmxor"},       {0x1c, "vmorn"},
    {0x1d, "vmnand"},  {0x1e, "vmnor"},    {0x1f, "vmxnor"},    {0x20, "vdivu"},       {0x21, "vdiv"},
    {0x22, "vremu"},   {0x23, "vrem"},     {0x24, "vmulhu"},    {0x25, "vmul"},        {0x26, "vmulhsu"},
    {0x27, "vmulh"},   {0x29, "vmadd"},    {0x2b, "vnmsub"},    {0x2d, "vmacc"},       {0x2f, "vnmsac"},
    {0x30, "vwaddu"},  {0x31, "vwadd"},    {0x32, "vwsubu"},    {0x33, "vwsub"},       {0x34, "vwaddu"},
    {0x35, "vwadd"},   {0x36, "vwsubu"},   {0x37, "vwsub"},     {0x38, "vwmulu"},      {0x3a, "vwmulsu"},
    {0x3b, "vwmul"},   {0x3c, "vwmaccu"},  {0x3d, "vwmacc"},    {0x3e, "vwmaccus"},    {0x3f, "vwmaccsu"}};
constexpr Named kFloat[] = {
    {0x00, "vfadd"},        {0x01, "vfredusum"},  {0x02, "vfsub"},   {0x03, "vfredosum"},
    {0x04, "vfmin"},        {0x05, "vfredmin"},   {0x06, "vfmax"},   {0x07, "vfredmax"},
    {0x08, "vfsgnj"},       {0x09, "vfsgnjn"},    {0x0a, "vfsgnjx"}, {0x0e, "vfslide1up"},
    {0x0f, "vfslide1down"}, {0x17, "vfmerge"},    {0x18, "vmfeq"},   {0x19, "vmfle"},
    {0x1b, "vmflt"},        {0x1c, "vmfne"},      {0x1d, "vmfgt"},   {0x1f, "vmfge"},
    {0x20, "vfdiv"},        {0x21, "vfrdiv"},     {0x24, "vfmul"},   {0x27, "vfrsub"},
    {0x28, "vfmadd"},       {0x29, "vfnmadd"},    {0x2a, "vfmsub"},  {0x2b, "vfnmsub"},
    {0x2c, "vfmacc"},       {0x2d, "vfnmacc"},    {0x2e, "vfmsac"},  {0x2f, "vfnmsac"},
    {0x30, "vfwadd"},       {0x31, "vfwredusum"}, {0x32, "vfwsub"},  {0x33, "vfwredosum"},
    {0x34, "vfwadd"},       {0x36, "vfwsub"},     {0x38, "vfwmul"},  {0x3c, "vfwmacc"},
    {0x3d, "vfwnmacc"},     {0x3e, "vfwmsac"},    {0x3f, "vfwnmsac"}};

template <std::size_t N> const char* lookUp(const Named (&table)[N], unsigned funct6) {
    for (const Named& n : table)
        if (n.funct6 == funct6)
            return n.name;
    return "";
}

std::string unary(const Instruction& i) {
    const unsigned vs1 = i.rs1;
    if (i.rm == OPMVV && i.funct6 == 0x10)
        return vs1 == 0 ? "vmv.x.s" : vs1 == 0x10 ? "vcpop.m" : vs1 == 0x11 ? "vfirst.m" : "illegal";
    if (i.rm == OPMVX && i.funct6 == 0x10)
        return i.rs2 == 0 ? "vmv.s.x" : "illegal";
    if (i.rm == OPMVV && i.funct6 == 0x12) {
        static constexpr const char* names[8] = {"",          "",          "vzext.vf8", "vsext.vf8",
                                                 "vzext.vf4", "vsext.vf4", "vzext.vf2", "vsext.vf2"};
        return vs1 >= 2 && vs1 < 8 ? names[vs1] : "illegal";
    }
    if (i.rm == OPMVV && i.funct6 == 0x14) {
        switch (vs1) {
        case 1: return "vmsbf.m";
        case 2: return "vmsof.m";
        case 3: return "vmsif.m";
        case 0x10: return "viota.m";
        case 0x11: return "vid.v";
        default: return "illegal";
        }
    }
    if (i.rm == OPFVV && i.funct6 == 0x10)
        return vs1 == 0 ? "vfmv.f.s" : "illegal";
    if (i.rm == OPFVF && i.funct6 == 0x10)
        return i.rs2 == 0 ? "vfmv.s.f" : "illegal";
    if (i.rm == OPFVV && i.funct6 == 0x12) {
        static constexpr const char* names[24] = {"vfcvt.xu.f.v",
                                                  "vfcvt.x.f.v",
                                                  "vfcvt.f.xu.v",
                                                  "vfcvt.f.x.v",
                                                  "",
                                                  "",
                                                  "vfcvt.rtz.xu.f.v",
                                                  "vfcvt.rtz.x.f.v",
                                                  "vfwcvt.xu.f.v",
                                                  "vfwcvt.x.f.v",
                                                  "vfwcvt.f.xu.v",
                                                  "vfwcvt.f.x.v",
                                                  "vfwcvt.f.f.v",
                                                  "",
                                                  "vfwcvt.rtz.xu.f.v",
                                                  "vfwcvt.rtz.x.f.v",
                                                  "vfncvt.xu.f.w",
                                                  "vfncvt.x.f.w",
                                                  "vfncvt.f.xu.w",
                                                  "vfncvt.f.x.w",
                                                  "vfncvt.f.f.w",
                                                  "vfncvt.rod.f.f.w",
                                                  "vfncvt.rtz.xu.f.w",
                                                  "vfncvt.rtz.x.f.w"};
        return vs1 < 24 && *names[vs1] ? names[vs1] : "illegal";
    }
    if (i.rm == OPFVV && i.funct6 == 0x13) {
        switch (vs1) {
        case 0: return "vfsqrt.v";
        case 4: return "vfrsqrt7.v";
        case 5: return "vfrec7.v";
        case 0x10: return "vfclass.v";
        default: return "illegal";
        }
    }
    return "";
}

std::string memoryName(const Instruction& i) {
    const bool store = i.mnemonic == Mnemonic::VectorStore;
    const unsigned bits = 8u * i.rm;
    const std::string seg = i.rs3 > 1 ? fmt::format("seg{}", i.rs3) : "";
    switch (i.funct6) {
    case 0:
        switch (i.rs2) {
        case 0: return fmt::format("{}{}e{}.v", store ? "vs" : "vl", seg, bits);
        case 8: return store ? fmt::format("vs{}r.v", i.rs3) : fmt::format("vl{}re{}.v", i.rs3, bits);
        case 0x0b: return store ? "vsm.v" : "vlm.v";
        case 0x10: return store ? "illegal" : fmt::format("vl{}e{}ff.v", seg, bits);
        default: return "illegal";
        }
    case 2: return fmt::format("{}{}e{}.v", store ? "vss" : "vls", seg, bits);
    default: return fmt::format("{}{}{}ei{}.v", store ? "vs" : "vl", i.funct6 == 1 ? "ux" : "ox", seg, bits);
    }
}

}  // namespace

VectorType decodeVectorType(std::uint64_t vtype, unsigned vlenBytes) {
    VectorType t;
    const unsigned vlmul = vtype & 7, vsew = (vtype >> 3) & 7;
    if (vlmul == 4 || vsew > 3 || (vtype >> 8) != 0)
        return t;
    t.sewBytes = 1u << vsew;
    t.lmul8 = vlmul < 4 ? 8u << vlmul : 8u >> (8 - vlmul);
    // A fractional LMUL must leave room for one element of SEW: SEW ≤ ELEN · LMUL.
    if (8 * t.sewBytes * 8 > 64 * t.lmul8)
        return t;
    t.vill = false;
    t.vlmax = std::uint64_t{vlenBytes} * t.lmul8 / 8 / t.sewBytes;
    return t;
}

std::string vectorName(const Instruction& i) {
    switch (i.mnemonic) {
    case Mnemonic::Vsetvli:
    case Mnemonic::Vsetivli:
    case Mnemonic::Vsetvl: return std::string(mnemonicName(i.mnemonic));
    case Mnemonic::VectorLoad:
    case Mnemonic::VectorStore: return memoryName(i);
    case Mnemonic::VectorInteger:
    case Mnemonic::VectorMask:
    case Mnemonic::VectorFloat: break;
    default: return "";
    }
    const std::string special = unary(i);
    if (!special.empty())
        return special;
    const char* base = i.rm == OPFVV || i.rm == OPFVF   ? lookUp(kFloat, i.funct6)
                       : i.rm == OPMVV || i.rm == OPMVX ? lookUp(kMask, i.funct6)
                                                        : lookUp(kInteger, i.funct6);
    if (!*base)
        return "illegal";
    const std::string b = base;
    const unsigned f6 = i.funct6;
    const bool vector = i.rm == OPIVV || i.rm == OPFVV || i.rm == OPMVV;
    const char* scalar = i.rm == OPIVI ? "i" : i.rm == OPFVF ? "f" : "x";
    // Forms with their own suffixes.
    if (b == "vmerge" || b == "vfmerge")
        return i.vm ? fmt::format("{}.v.{}", b == "vmerge" ? "vmv" : "vfmv", vector ? "v" : scalar)
                    : fmt::format("{}.v{}m", b, vector ? "v" : scalar);
    if (b == "vadc" || b == "vsbc")
        return fmt::format("{}.v{}m", b, vector ? "v" : scalar);
    if (b == "vmadc" || b == "vmsbc")
        return fmt::format("{}.v{}{}", b, vector ? "v" : scalar, i.vm ? "" : "m");
    if (i.rm == OPIVI && f6 == 0x27)
        return fmt::format("vmv{}r.v", (i.rs1 & 7) + 1);
    if (i.rm == OPIVV && f6 == 0x0e)
        return "vrgatherei16.vv";
    if (b.find("red") != std::string::npos)
        return b + ".vs";
    if (i.rm == OPMVV && f6 >= 0x18 && f6 <= 0x1f)
        return b + ".mm";
    if (b == "vcompress")
        return "vcompress.vm";
    const bool wideSource = (f6 >= 0x2c && f6 <= 0x2f && i.rm <= OPIVX && i.rm != OPFVV && i.rm != OPMVV) ||
                            ((i.rm == OPMVV || i.rm == OPMVX) && f6 >= 0x34 && f6 <= 0x37) ||
                            ((i.rm == OPFVV || i.rm == OPFVF) && (f6 == 0x34 || f6 == 0x36));
    return fmt::format("{}.{}{}", b, wideSource ? "w" : "v", vector ? "v" : scalar);
}

}  // namespace tessim::riscv
