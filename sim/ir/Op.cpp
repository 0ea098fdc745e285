#include "sim/ir/Op.h"

#include <array>
#include <utility>

namespace tessim {
namespace {

constexpr std::array<std::pair<OpKind, std::string_view>, kOpKindCount> kOpNames{{
    {OpKind::Nop, "nop"},
    {OpKind::VLoad, "vload"},
    {OpKind::VStore, "vstore"},
    {OpKind::ScalarLoad, "sload"},
    {OpKind::Fma, "fma"},
    {OpKind::Mul, "mul"},
    {OpKind::Add, "add"},
    {OpKind::Broadcast, "broadcast"},
    {OpKind::Slide, "slide"},
    {OpKind::Reduce, "reduce"},
    {OpKind::MacTile, "mac_tile"},
    {OpKind::DmaStart, "dma_start"},
    {OpKind::DmaWait, "dma_wait"},
    {OpKind::Barrier, "barrier"},
    {OpKind::Fork, "fork"},
    {OpKind::Join, "join"},
    {OpKind::SAdd, "sadd"},
    {OpKind::SMul, "smul"},
    {OpKind::SCompare, "scmp"},
    {OpKind::SShift, "sshift"},
    {OpKind::ScalarStore, "sstore"},
    {OpKind::Branch, "branch"},
    {OpKind::VSetVl, "vsetvl"},
    {OpKind::Gather, "vgather"},
    {OpKind::WidenFma, "wfma"},
    {OpKind::SegLoad, "vlseg"},
    {OpKind::SegStore, "vsseg"},
    {OpKind::Fence, "fence"},
}};

// The table lists every kind once, in enum order (so a name is found by index too).
constexpr bool namesMatchKinds() {
    for (std::size_t i = 0; i < kOpNames.size(); ++i)
        if (static_cast<std::size_t>(kOpNames[i].first) != i)
            return false;
    return true;
}
static_assert(namesMatchKinds(), "kOpNames must list every OpKind in enum order");

constexpr std::array<std::pair<DType, std::string_view>, 6> kDTypeNames{{
    {DType::I8, "i8"},
    {DType::I16, "i16"},
    {DType::I32, "i32"},
    {DType::F16, "f16"},
    {DType::F32, "f32"},
    {DType::F64, "f64"},
}};

}  // namespace

std::string_view opKindName(OpKind k) {
    auto i = static_cast<std::size_t>(k);
    return i < kOpNames.size() ? kOpNames[i].second : "?";
}

bool parseOpKind(std::string_view name, OpKind& out) {
    for (const auto& [kind, n] : kOpNames) {
        if (n == name) {
            out = kind;
            return true;
        }
    }
    return false;
}

std::string_view dtypeName(DType t) {
    for (const auto& [type, name] : kDTypeNames)
        if (type == t)
            return name;
    return "?";
}

bool parseDType(std::string_view name, DType& out) {
    for (const auto& [type, n] : kDTypeNames) {
        if (n == name) {
            out = type;
            return true;
        }
    }
    return false;
}

}  // namespace tessim
