// The control ops of a compiled loop and of a parallel region, as kernels emit them: scalar
// address arithmetic and compares (`sadd`, `scmp`, ... with an immediate), the back-edge branch
// on a flag register, and fork / join / barrier.
#pragma once

#include <cstdint>

#include "sim/ir/Op.h"

namespace tessim {

// Scalar register r (x0 reads zero, as in RISC-V) in the op's register numbering.
constexpr std::uint8_t scalarReg(unsigned r) {
    return static_cast<std::uint8_t>(kScalarRegBase + r);
}

// dst ← src (kind) imm, e.g. a pointer increment or a compare against the loop bound; in place
// (setScalarOp, into a default-constructed op) on a hot path, as VectorOps.h's set… forms.
inline void setScalarOp(Op& op, OpKind kind, DType dtype, std::uint8_t dst, std::uint8_t src, double imm) {
    op.kind = kind;
    op.dtype = dtype;
    op.dst = dst;
    op.src[0] = src;
    op.imm = imm;
}
inline Op scalarOp(OpKind kind, DType dtype, std::uint8_t dst, std::uint8_t src, double imm) {
    Op op;
    setScalarOp(op, kind, dtype, dst, src, imm);
    return op;
}

// The loop's back-edge, reading the compare's flag register; taken except on the last iteration.
inline Op branchOp(DType dtype, std::uint8_t flag, bool taken) {
    Op op;
    op.kind = OpKind::Branch;
    op.dtype = dtype;
    op.src[0] = flag;
    if (taken)
        op.flags = Op::kTaken;
    return op;
}

// Fork (signal `tag`), Join (wait for `count` signals of `tag`) or Barrier (`count` engines meet at `tag`).
inline Op syncOp(OpKind kind, std::uint32_t tag, std::uint32_t count) {
    Op op;
    op.kind = kind;
    op.tag = tag;
    op.count = count;
    return op;
}

}  // namespace tessim
