#include "workloads/conv/ConvShapeReader.h"

#include <fmt/format.h>

namespace tessim {

void readWindow(config::Reader& r, ConvShape& s) {
    using config::Range;
    // k rows by k columns, unless kh (rows) or kw (columns) is written (k may then be left out when
    // both are); the padding likewise: pad on every side, pad_h above and below, pad_w left and right.
    const Range<std::uint32_t> kernel{1, 255}, padding{0, 255};
    const std::uint32_t k = r.has("kh") && r.has("kw") && !r.has("k") ? 0 : r.get<std::uint32_t>("k", kernel);
    s.kh = r.has("kh") ? r.get<std::uint32_t>("kh", kernel) : k;
    s.kw = r.has("kw") ? r.get<std::uint32_t>("kw", kernel) : k;
    // The stride likewise: stride in both directions, stride_h down and stride_w across. A key is
    // read, and so echoed in the report, only where it decides an axis.
    const Range<std::uint32_t> strides{1, 255};
    const std::uint32_t stride = r.has("stride_h") && r.has("stride_w") && !r.has("stride")
                                     ? 1u
                                     : r.get<std::uint32_t>("stride", 1u, strides);
    s.strideH = r.has("stride_h") ? r.get<std::uint32_t>("stride_h", strides) : stride;
    s.strideW = r.has("stride_w") ? r.get<std::uint32_t>("stride_w", strides) : stride;
    const std::uint32_t pad = r.get<std::uint32_t>("pad", 0u, padding);
    s.padH = r.get<std::uint32_t>("pad_h", pad, padding);
    s.padW = r.get<std::uint32_t>("pad_w", pad, padding);
}

void writeStride(nlohmann::ordered_json& j, const ConvShape& s) {
    if (s.squareStride()) {
        j["stride"] = s.strideH;
    } else {
        j["stride_h"] = s.strideH;
        j["stride_w"] = s.strideW;
    }
}

std::string strideText(const ConvShape& s) {
    return s.squareStride() ? std::to_string(s.strideH) : fmt::format("{}×{}", s.strideH, s.strideW);
}

std::string repeatedLayerName(const std::string& name, std::size_t first) {
    return fmt::format("layer name '{}' is given twice (first at layers[{}]): reports key layers by name",
                       name, first);
}

std::string readLayerName(config::Reader& row, std::size_t index, std::map<std::string, std::size_t>& seen) {
    std::string name = row.get<std::string>("name", fmt::format("layer{}", index));
    const auto [at, fresh] = seen.emplace(name, index);
    if (!fresh)
        row.fail("name", repeatedLayerName(name, at->second));
    return name;
}

ConvShape readConvShape(config::Reader& r) {
    using config::Range;
    ConvShape s;
    s.h = r.get<std::uint32_t>("h", Range<std::uint32_t>{1, 1 << 16});
    s.w = r.get<std::uint32_t>("w", Range<std::uint32_t>{1, 1 << 16});
    s.channels = r.get<std::uint32_t>("channels", Range<std::uint32_t>{1, 65535});
    s.filters = r.get<std::uint32_t>("filters", Range<std::uint32_t>{1, 65535});
    readWindow(r, s);
    // Grouped convolution: `groups` independent convolutions of channels/groups by filters/groups.
    s.groups = r.get<std::uint32_t>("groups", 1u, Range<std::uint32_t>{1, 65535});
    if (s.channels % s.groups != 0 || s.filters % s.groups != 0)
        r.fail("groups", fmt::format("groups {} must divide both channels ({}) and filters ({})", s.groups,
                                     s.channels, s.filters));
    if (s.h + 2 * s.padH < s.kh || s.w + 2 * s.padW < s.kw)
        r.fail(s.h + 2 * s.padH < s.kh ? (r.has("kh") ? "kh" : "k") : (r.has("kw") ? "kw" : "k"),
               fmt::format("a {}×{} kernel does not fit the padded {}×{} input", s.kh, s.kw, s.h + 2 * s.padH,
                           s.w + 2 * s.padW));
    return s;
}

}  // namespace tessim
