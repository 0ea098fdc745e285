// The vector ops of a kernel's loop body, as kernels emit them: an op of one dtype over vl
// elements, a load or store of a register at an address of a memory space, vsetvl and conversions.
#pragma once

#include <cstdint>

#include "sim/ir/Op.h"
#include "sim/ir/OpTable.h"

namespace tessim {

// Each op below has an in-place form, set…(op, …), that writes its fields into a default-constructed
// op: a stream's hot loop writes into out.emplace_back(), as an Op composed on the stack and copied
// into the stream stalls on store forwarding.
inline void setVectorOp(Op& op, OpKind kind, DType dtype, std::uint32_t vl) {
    op.kind = kind;
    op.dtype = dtype;
    op.vl = vl;
}
inline Op vectorOp(OpKind kind, DType dtype, std::uint32_t vl) {
    Op op;
    setVectorOp(op, kind, dtype, vl);
    return op;
}

// reg ← vl elements at `addr` of memory `space`.
inline void setVectorLoad(Op& op, DType dtype, std::uint8_t reg, std::uint8_t space, std::uint64_t addr,
                          std::uint32_t vl) {
    setVectorOp(op, OpKind::VLoad, dtype, vl);
    op.dst = reg;
    op.space = space;
    op.addr = addr;
}
inline Op vectorLoad(DType dtype, std::uint8_t reg, std::uint8_t space, std::uint64_t addr,
                     std::uint32_t vl) {
    Op op;
    setVectorLoad(op, dtype, reg, space, addr, vl);
    return op;
}

// vl elements of reg → `addr` of memory `space`.
inline void setVectorStore(Op& op, DType dtype, std::uint8_t reg, std::uint8_t space, std::uint64_t addr,
                           std::uint32_t vl) {
    setVectorOp(op, OpKind::VStore, dtype, vl);
    op.src[0] = reg;
    op.space = space;
    op.addr = addr;
}
inline Op vectorStore(DType dtype, std::uint8_t reg, std::uint8_t space, std::uint64_t addr,
                      std::uint32_t vl) {
    Op op;
    setVectorStore(op, dtype, reg, space, addr, vl);
    return op;
}

// vsetvl: the vector length `avl` at LMUL `lmul`, written to register `dst`.
inline Op vsetvlOp(DType dtype, std::uint32_t avl, std::uint8_t dst, unsigned lmul) {
    Op op = vectorOp(OpKind::VSetVl, dtype, avl);
    op.dst = dst;
    op.imm = lmul;
    return op;
}

// vd ← vs0 from `from` to `to` over vl elements (vsext, vncvt, vfcvt, vfwcvt), priced by the wider group.
inline Op convertOp(DType to, DType from, std::uint8_t dst, std::uint8_t src, std::uint32_t vl,
                    unsigned registerBytes) {
    Op op = vectorOp(OpKind::Convert, to, vl);
    op.dst = dst;
    op.src[0] = src;
    op.count = static_cast<std::uint32_t>(from);
    op.lmul8 = convertLmul8(op, registerBytes);
    return op;
}

}  // namespace tessim
