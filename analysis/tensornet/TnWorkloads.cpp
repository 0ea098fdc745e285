#include "analysis/tensornet/TnWorkloads.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tessim::tn {

namespace {

// The conv2d kernel's limits: h, w ≤ 2^16, channels and filters ≤ 65535.
constexpr std::uint64_t kMaxSide = 1 << 16, kMaxChannels = 65535;

std::string gemmLayer(const std::string& name, const Gemm& g) {
    std::uint64_t w = 1;  // the widest row of at most 64 pixels that divides M
    for (std::uint64_t f = 1; f <= 64 && f <= g.m; ++f)
        if (g.m % f == 0)
            w = f;
    if (g.m / w > kMaxSide || g.k > kMaxChannels || g.n > kMaxChannels)
        throw std::invalid_argument(
            fmt::format("{}: a GEMM of {} x {} x {} exceeds the conv2d kernel's limits "
                        "(rows as h·w ≤ 2^16·64, channels and filters ≤ 65535)",
                        name, g.m, g.k, g.n));
    return fmt::format("{{name: {}, h: {}, w: {}, channels: {}, filters: {}, k: 1, stride: 1, pad: 0}}", name,
                       g.m / w, w, g.k, g.n);
}

// A convolution's window keys as conv2d reads them: `k` when square, else `kh` and `kw`.
std::string windowKeys(std::uint64_t kh, std::uint64_t kw) {
    return kh == kw ? fmt::format("k: {}", kh) : fmt::format("kh: {}, kw: {}", kh, kw);
}

// A conv2d layer row.
std::string convRow(const std::string& name, std::uint64_t h, std::uint64_t w, std::uint64_t channels,
                    std::uint64_t filters, std::uint64_t kh, std::uint64_t kw, std::uint64_t stride,
                    std::uint64_t pad, std::uint64_t groups = 1) {
    return fmt::format("{{name: {}, h: {}, w: {}, channels: {}, filters: {}, {}, stride: {}, pad: {}{}}}",
                       name, h, w, channels, filters, windowKeys(kh, kw), stride, pad,
                       groups > 1 ? fmt::format(", groups: {}", groups) : std::string());
}

bool isConv(const TnLayer& layer) {
    return layer.convH > 0 && layer.weightDims.size() == 4;
}

void requireTarget(const std::string& target) {
    if (!tnTargetSupported(target))
        throw std::invalid_argument("target '" + target +
                                    "': TT and TR layers run on k1 (einsum chain) or npu "
                                    "(GEMMs on the MAC array)");
}

}  // namespace

bool tnTargetSupported(const std::string& target) {
    return target == "k1" || target == "npu";
}

std::vector<Gemm> planGemms(const ContractionPlan& plan) {
    std::vector<Gemm> gemms;
    const std::uint64_t R = plan.ringRank;
    for (std::size_t t = 0; t < plan.steps.size(); ++t) {
        const TtEinsum& e = plan.steps[t].einsum;
        Gemm g{e.b, e.n * e.r1, e.m * e.r};
        if (R > 1) {
            if (t == 0)
                g.n *= R;  // the ring index is kept beside the first core's rank
            else if (t + 1 == plan.steps.size())
                g.k *= R;  // and contracted with the last core's r_0
            else
                g.m *= R;  // and carried through the middle as rows
        }
        gemms.push_back(g);
    }
    return gemms;
}

ReproRun layerRun(const std::string& name, const std::string& target, const TnLayer& layer,
                  const ContractionPlan& plan) {
    requireTarget(target);
    ReproRun run;
    run.name = name;
    run.target = target;
    if (target == "k1") {
        std::vector<std::uint64_t> ranks = plan.chain.ranks;
        ranks.front() = ranks.back() = plan.ringRank;
        run.workload = "fc";
        run.sets = {fmt::format("workload.in={}", layer.inSize()),
                    fmt::format("workload.out={}", layer.outSize()),
                    fmt::format("workload.batch={}", layer.rows),
                    fmt::format("workload.{}={{in: {}, out: {}, ranks: {}}}",
                                // a train started inside runs as the ring it then is
                                layer.format == Format::TT && plan.ringRank == 1 ? "tt" : "tr",
                                listText(plan.chain.in), listText(plan.chain.out), listText(ranks))};
        // A convolution's: its im2col first (the kernel copies nothing for a 1×1 window of stride 1
        // without padding, whose image is its own column matrix).
        if (isConv(layer)) {
            const auto& d = layer.weightDims;
            run.sets.push_back(
                fmt::format("workload.im2col={{h: {}, w: {}, channels: {}, {}, stride: {}, pad: {}}}",
                            layer.convH, layer.convW, d[1], windowKeys(d[2], d[3]), layer.stride, layer.pad));
        }
        return run;
    }
    std::string layers;
    const auto gemms = planGemms(plan);
    for (std::size_t t = 0; t < gemms.size(); ++t)
        layers += (t ? ", " : "") + gemmLayer(fmt::format("step{}.core{}", t, plan.steps[t].core), gemms[t]);
    run.workload = "resnet18";
    run.sets = {"workload.layers=[" + layers + "]"};
    return run;
}

ReproRun denseRun(const std::string& name, const std::string& target, const TnLayer& layer) {
    requireTarget(target);
    ReproRun run;
    run.name = name;
    run.target = target;
    const auto& dims = layer.weightDims;
    // (the npu's conv2d takes square kernels; another runs as its GEMM there)
    const bool conv = isConv(layer) && (target == "k1" || dims[2] == dims[3]);
    if (target == "k1" && !conv) {
        run.workload = "fc";
        run.sets = {fmt::format("workload.in={}", layer.inSize()),
                    fmt::format("workload.out={}", layer.outSize()),
                    fmt::format("workload.batch={}", layer.rows)};
        return run;
    }
    // A convolution itself: on k1 conv2d's im2col + GEMM (f32) on one core, as the TT and TR
    // chains run; on the npu the MAC array's.
    run.workload = "resnet18";
    if (conv)
        run.sets = {"workload.layers=[" +
                    convRow(layer.name, layer.convH, layer.convW, dims[1], dims[0], dims[2], dims[3],
                            layer.stride, layer.pad) +
                    "]"};
    else
        run.sets = {"workload.layers=[" +
                    gemmLayer(layer.name, Gemm{layer.rows, layer.inSize(), layer.outSize()}) + "]"};
    if (target == "k1")
        run.sets.push_back("plan.threads=1");
    return run;
}

ReproRun groupedDenseRun(const std::string& name, const std::string& target, const GroupedConv& c) {
    requireTarget(target);
    ReproRun run;
    run.name = name;
    run.target = target;
    run.workload = "resnet18";
    run.sets = {"workload.layers=[" +
                convRow(c.name, c.h, c.w, c.channels, c.filters, c.k, c.k, c.stride, c.pad, c.groups) + "]"};
    if (target == "k1")
        run.sets.push_back("plan.threads=1");  // as the TT and TR chains run
    return run;
}

}  // namespace tessim::tn
