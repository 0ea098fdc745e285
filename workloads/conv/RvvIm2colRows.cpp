#include "workloads/conv/RvvIm2colRows.h"

#include <algorithm>

#include "workloads/common/LoopOps.h"
#include "workloads/common/VectorOps.h"

namespace tessim {

void VectorTypeState::set(std::vector<Op>& out, DType t, std::uint32_t avl, unsigned lmul,
                          std::uint8_t vlRegister) {
    if (avl == vl && t == type)
        return;
    vl = avl;
    type = t;
    out.push_back(vsetvlOp(t, avl, vlRegister, lmul));
}

void RvvIm2colRows::zeros(std::vector<Op>& out) {
    state_.set(out, dtype_, vlmax_, kIm2colLmul, regs_.vl);
    Op zero = vectorOp(OpKind::Broadcast, dtype_, vlmax_);
    zero.dst = regs_.zero;
    out.push_back(zero);
}

void RvvIm2colRows::copy(std::vector<Op>& out, std::optional<std::uint64_t> src, std::uint64_t stride,
                         std::uint64_t dst, std::uint64_t n) {
    const unsigned elem = dtypeBytes(dtype_);
    if (src)
        out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.src, scalarReg(0), static_cast<double>(*src)));
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.dst, scalarReg(0), static_cast<double>(dst)));
    for (std::uint64_t i = 0; i < n; i += vlmax_) {
        const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax_, n - i));
        state_.set(out, dtype_, vl, kIm2colLmul, regs_.vl);
        if (src) {
            Op load = vectorLoad(dtype_, regs_.data, space_, *src + i * (stride ? stride : elem), vl);
            load.stride = static_cast<std::int64_t>(stride);
            load.base = regs_.src;
            out.push_back(load);
        }
        Op store = vectorStore(dtype_, src ? regs_.data : regs_.zero, space_, dst + i * elem, vl);
        store.base = regs_.dst;
        out.push_back(store);
    }
}

void RvvIm2colRows::row(std::vector<Op>& out, const ConvShape& s, std::uint64_t input, unsigned g,
                        std::uint64_t m, std::uint64_t row) {
    const unsigned elem = dtypeBytes(dtype_);
    const std::uint64_t gc = s.groupChannels();
    const auto oy = static_cast<std::int64_t>(m / s.outW()), ox = static_cast<std::int64_t>(m % s.outW());
    for (std::uint32_t ky = 0; ky < s.kh; ++ky) {
        const std::int64_t iy = oy * s.strideH - s.padH + ky;
        const std::uint64_t dst = row + std::uint64_t{ky} * s.kw * gc * elem;
        if (iy < 0 || iy >= s.h) {
            copy(out, std::nullopt, 0, dst, s.kw * gc);
            continue;
        }
        const std::int64_t ix0 = ox * s.strideW - s.padW;
        const auto kx0 = static_cast<std::uint32_t>(std::clamp<std::int64_t>(-ix0, 0, s.kw));
        const auto kx1 = static_cast<std::uint32_t>(std::clamp<std::int64_t>(s.w - ix0, kx0, s.kw));
        auto at = [&](std::uint32_t kx) {
            return input + ((iy * s.w + ix0 + kx) * s.channels + g * gc) * elem;
        };
        if (kx0 > 0)
            copy(out, std::nullopt, 0, dst, kx0 * gc);
        if (kx1 > kx0) {
            if (s.groups == 1)
                copy(out, at(kx0), 0, dst + kx0 * gc * elem, (kx1 - kx0) * gc);
            else if (gc == 1)
                copy(out, at(kx0), s.channels * elem, dst + kx0 * elem, kx1 - kx0);
            else
                for (std::uint32_t kx = kx0; kx < kx1; ++kx)
                    copy(out, at(kx), 0, dst + kx * gc * elem, gc);
        }
        if (kx1 < s.kw)
            copy(out, std::nullopt, 0, dst + kx1 * gc * elem, (s.kw - kx1) * gc);
    }
}

}  // namespace tessim
