#include "workloads/conv/ConvShapeReader.h"

#include <fmt/format.h>

namespace tessim {

void readPerAxis(config::Reader& r, const char* both, const char* rows, const char* columns, std::uint32_t& h,
                 std::uint32_t& w, std::optional<std::uint32_t> fallback,
                 const config::Range<std::uint32_t>& range) {
    const std::uint32_t shared = r.has(rows) && r.has(columns) && !r.has(both) ? 0
                                 : fallback ? r.get<std::uint32_t>(both, *fallback, range)
                                            : r.get<std::uint32_t>(both, range);
    h = r.has(rows) ? r.get<std::uint32_t>(rows, range) : shared;
    w = r.has(columns) ? r.get<std::uint32_t>(columns, range) : shared;
}

void readWindow(config::Reader& r, ConvShape& s) {
    using config::Range;
    // k rows by k columns, unless kh (rows) or kw (columns) is written; the stride likewise (stride,
    // stride_h down, stride_w across); the padding: pad on every side, pad_h above and below, pad_w
    // left and right (both always read, so always echoed: reports before per-axis strides did).
    const Range<std::uint32_t> padding{0, 255};
    readPerAxis(r, "k", "kh", "kw", s.kh, s.kw, std::nullopt, Range<std::uint32_t>{1, 255});
    readPerAxis(r, "stride", "stride_h", "stride_w", s.strideH, s.strideW, 1u, Range<std::uint32_t>{1, 255});
    const std::uint32_t pad = r.get<std::uint32_t>("pad", 0u, padding);
    s.padH = r.get<std::uint32_t>("pad_h", pad, padding);
    s.padW = r.get<std::uint32_t>("pad_w", pad, padding);
}

void writePerAxis(nlohmann::ordered_json& j, const char* both, const char* rows, const char* columns,
                  std::uint32_t h, std::uint32_t w) {
    if (h == w) {
        j[both] = h;
    } else {
        j[rows] = h;
        j[columns] = w;
    }
}

void writeStride(nlohmann::ordered_json& j, const ConvShape& s) {
    writePerAxis(j, "stride", "stride_h", "stride_w", s.strideH, s.strideW);
}

std::string strideText(const ConvShape& s) {
    return s.strideH == s.strideW ? std::to_string(s.strideH) : fmt::format("{}×{}", s.strideH, s.strideW);
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
    requireWindowFits(r, s);
    return s;
}

void requireWindowFits(const config::Reader& r, const ConvShape& s) {
    if (s.h + 2 * s.padH < s.kh || s.w + 2 * s.padW < s.kw)
        r.fail(s.h + 2 * s.padH < s.kh ? (r.has("kh") ? "kh" : "k") : (r.has("kw") ? "kw" : "k"),
               fmt::format("a {}×{} kernel does not fit the padded {}×{} input", s.kh, s.kw, s.h + 2 * s.padH,
                           s.w + 2 * s.padW));
}

}  // namespace tessim
