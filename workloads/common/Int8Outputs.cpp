#include "workloads/common/Int8Outputs.h"

#include <cmath>

#include "sim/ir/ElementArithmetic.h"
#include "sim/ir/OpTable.h"
#include "workloads/common/VectorOps.h"

namespace tessim {

Int8Outputs int8Outputs(bool requantize, std::int32_t multiplier, std::uint32_t shift) {
    Int8Outputs o;
    o.requantize = requantize;
    o.scale = roundTo(DType::F32, std::ldexp(static_cast<double>(multiplier), -static_cast<int>(shift)));
    return o;
}

void loadInt8Constants(std::vector<Op>& out, const Int8Outputs& o, std::uint8_t space) {
    if (!o.requantize)
        return;
    const std::uint8_t regs[] = {kInt8Scale, kInt8Low, kInt8High};
    for (unsigned i = 0; i < 3; ++i) {
        Op load;
        load.kind = OpKind::ScalarLoad;
        load.dtype = DType::F32;
        load.dst = regs[i];
        load.space = space;
        load.addr = o.constants + 4 * i;
        out.push_back(load);
    }
}

void storeInt8Outputs(std::vector<Op>& out, const Int8Outputs& o, const std::vector<AccumulatorStore>& stores,
                      std::uint32_t vl, std::uint8_t space, unsigned registerBytes, unsigned lmulI8,
                      std::uint8_t vlReg) {
    auto store = [&](DType t, const AccumulatorStore& s) {
        Op op = vectorStore(t, s.acc, space, s.addr, vl);
        op.base = s.base;
        out.push_back(op);
    };
    if (!o.requantize) {
        out.push_back(vsetvlOp(DType::I32, vl, vlReg, 4 * lmulI8));
        for (const auto& s : stores)
            store(DType::I32, s);
        return;
    }
    auto op = [&](OpKind kind, std::uint8_t acc, std::uint8_t scalar) {
        Op v = vectorOp(kind, DType::F32, vl);
        v.dst = acc;
        v.src[0] = acc;
        v.src[1] = scalar;
        out.push_back(v);
    };
    out.push_back(vsetvlOp(DType::F32, vl, vlReg, 4 * lmulI8));
    for (const auto& s : stores) {
        out.push_back(convertOp(DType::F32, DType::I32, s.acc, s.acc, vl, registerBytes));
        op(OpKind::Mul, s.acc, kInt8Scale);
        op(OpKind::Max, s.acc, kInt8Low);
        op(OpKind::Min, s.acc, kInt8High);
        out.push_back(convertOp(DType::I32, DType::F32, s.acc, s.acc, vl, registerBytes));
    }
    out.push_back(vsetvlOp(DType::I16, vl, vlReg, 2 * lmulI8));
    for (const auto& s : stores)
        out.push_back(convertOp(DType::I16, DType::I32, s.acc, s.acc, vl, registerBytes));
    out.push_back(vsetvlOp(DType::I8, vl, vlReg, lmulI8));
    for (const auto& s : stores) {
        out.push_back(convertOp(DType::I8, DType::I16, s.acc, s.acc, vl, registerBytes));
        store(DType::I8, s);
    }
}

double int8OutputReference(const Int8Outputs& o, double acc) {
    if (!o.requantize)
        return acc;
    double v = mulIn(DType::F32, convertIn(DType::F32, acc), o.scale);
    v = std::min(std::max(v, -128.0), 127.0);
    return convertIn(DType::I8, convertIn(DType::I16, convertIn(DType::I32, v)));
}

void writeInt8Constants(FunctionalMemory& memory, std::uint8_t space, const Int8Outputs& o) {
    if (!o.requantize)
        return;
    std::uint8_t buf[kInt8ConstantBytes];
    const double values[] = {o.scale, -128.0, 127.0};
    for (unsigned i = 0; i < 3; ++i)
        encodeElement(DType::F32, values[i], buf + 4 * i);
    memory.write(space, o.constants, buf, sizeof buf);
}

}  // namespace tessim
