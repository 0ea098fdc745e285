// One convolution layer's shape from a workload map (its top level, or an entry of its `layers`
// list): h, w, channels, filters, k (or kh and kw), stride (or stride_h and stride_w), pad (or pad_h
// and pad_w), groups. Shared by every conv2d row, so a layer reads the same on every chip.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/Reader.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {

ConvShape readConvShape(config::Reader& r);
// A value per axis: `rows` and `columns` (kh and kw, stride_h and stride_w …), each defaulting to
// `both` (k, stride …), which is read — and so echoed in the report — only where an axis is not
// written; without a fallback, `both` is required then.
void readPerAxis(config::Reader& r, const char* both, const char* rows, const char* columns, std::uint32_t& h,
                 std::uint32_t& w, std::optional<std::uint32_t> fallback,
                 const config::Range<std::uint32_t>& range);
// A window's keys (a convolution's or a pool's): k (or kh and kw), stride (or stride_h, stride_w),
// pad (or pad_h, pad_w).
void readWindow(config::Reader& r, ConvShape& s);
// A ConfigError at the window's key (k, kh or kw) when it does not fit the padded input.
void requireWindowFits(const config::Reader& r, const ConvShape& s);
// A value per axis as a report writes it: `both` when the axes agree (the key that reads it back),
// else `rows` and `columns`.
void writePerAxis(nlohmann::ordered_json& j, const char* both, const char* rows, const char* columns,
                  std::uint32_t h, std::uint32_t w);
// The stride so: `stride`, or `stride_h` and `stride_w`.
void writeStride(nlohmann::ordered_json& j, const ConvShape& s);
// "2" or "2×1" (rows × columns), for messages.
std::string strideText(const ConvShape& s);
// Entry `index` of a `layers` list: its `name` (layer<index> when left out). Reports, traces and
// comparisons key layers by name, so a name given twice is refused at the second; `seen` maps the
// names read so far to their entry.
std::string readLayerName(config::Reader& row, std::size_t index, std::map<std::string, std::size_t>& seen);
// The refusal of a name given twice, for readers that walk layer nodes themselves (LayerSequence).
std::string repeatedLayerName(const std::string& name, std::size_t first);

}  // namespace tessim
