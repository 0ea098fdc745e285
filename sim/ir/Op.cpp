#include "sim/ir/Op.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "sim/ir/OpTable.h"

namespace tessim {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 6> kDTypeNames{{
    {DType::I8, "i8"},
    {DType::I16, "i16"},
    {DType::I32, "i32"},
    {DType::F16, "f16"},
    {DType::F32, "f32"},
    {DType::F64, "f64"},
}};

}  // namespace

std::string registerName(std::uint8_t r) {
    if (r < kScalarRegBase)
        return fmt::format("v{}", r);
    if (r < kRegIds)
        return fmt::format("s{}", r - kScalarRegBase);
    return fmt::format("id {}", r);
}

std::string_view opKindName(OpKind k) {
    return isKnownOpKind(k) ? std::string_view(opInfo(k).name) : std::string_view("?");
}

bool parseOpKind(std::string_view name, OpKind& out) {
    const OpDescriptor* d = findOpKind(name);
    if (d)
        out = d->kind;
    return d != nullptr;
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
