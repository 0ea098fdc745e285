#include "sim/ir/Op.h"

#include <array>
#include <utility>

namespace tessim {
namespace {

constexpr std::array<std::pair<OpKind, std::string_view>, 16> kOpNames{{
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
}};

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
    for (const auto& [kind, name] : kOpNames)
        if (kind == k)
            return name;
    return "?";
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
