#include "workloads/scalesim/ScaleSimTopology.h"

#include <cctype>
#include <sstream>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/TextFile.h"
#include "workloads/scalesim/ScaleSimText.h"

namespace tessim {
namespace {

using config::ConfigError;
using config::Location;
using config::Node;

struct Cell {
    std::string text;
    int column = 1;  // 1-based column of the first non-blank character
};

std::vector<Cell> splitRow(const std::string& line) {
    std::vector<Cell> cells;
    std::size_t start = 0;
    while (true) {
        std::size_t comma = line.find(',', start);
        std::string raw = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t b = 0, e = raw.size();
        while (b < e && std::isspace(static_cast<unsigned char>(raw[b])))
            ++b;
        while (e > b && std::isspace(static_cast<unsigned char>(raw[e - 1])))
            --e;
        cells.push_back(Cell{raw.substr(b, e - b), int(start + b) + 1});
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    while (!cells.empty() && cells.back().text.empty())
        cells.pop_back();  // trailing commas
    return cells;
}

}  // namespace

bool isScaleSimTopologyPath(const std::string& path) {
    return path.size() > 4 && lowerCase(path.substr(path.size() - 4)) == ".csv";
}

Node loadScaleSimTopology(const std::string& path) {
    // A topology has one row per layer; 64 MiB is far beyond any network.
    std::istringstream in(config::readTextFile(path, "SCALE-Sim topology", std::uintmax_t{64} << 20));
    std::string line;
    int lineNo = 0;
    bool gemm = false, haveHeader = false;
    Location fileAt{path, 1, 1};
    Node root = Node::makeMap(fileAt);
    std::string stem =
        path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    if (stem.size() > 4)
        stem = stem.substr(0, stem.size() - 4);
    root.set("kernel", Node::makeScalar("scalesim", fileAt));
    root.set("name", Node::makeScalar(stem, fileAt));
    root.set("source", Node::makeScalar(path, fileAt));
    Node layers = Node::makeSequence(fileAt);
    std::size_t count = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        std::vector<Cell> cells = splitRow(line);
        if (cells.empty())
            continue;
        if (!haveHeader) {
            haveHeader = true;
            gemm = cells.size() >= 2 && lowerCase(cells[1].text) == "m";
            continue;
        }
        const std::size_t want = gemm ? 4 : 8;
        Location rowAt{path, lineNo, 1};
        if (cells.size() < want || cells.size() > (gemm ? 4u : 9u))
            throw ConfigError(
                rowAt, "",
                gemm ? fmt::format("a GEMM row has 4 fields (Layer, M, N, K), got {}", cells.size())
                     : fmt::format("a conv row has 8 fields (Layer name, IFMAP Height, IFMAP Width, "
                                   "Filter Height, Filter Width, Channels, Num Filter, Strides), got {}",
                                   cells.size()));
        auto number = [&](std::size_t i, const char* what) -> std::uint64_t {
            const Cell& c = cells[i];
            std::uint64_t v = 0;
            std::size_t pos = 0;
            try {
                v = std::stoull(c.text, &pos);
            } catch (...) {
                pos = 0;
            }
            if (c.text.empty() || pos != c.text.size() || v < 1 || v > (1ull << 31))
                throw ConfigError(Location{path, lineNo, c.column}, what,
                                  fmt::format("expected a positive integer {}, got '{}'", what, c.text));
            return v;
        };
        Node layer = Node::makeMap(rowAt);
        auto put = [&](const std::string& key, const std::string& value, int column) {
            Node v = Node::makeScalar(value, Location{path, lineNo, column});
            v.setKeyLocation(Location{path, lineNo, column});
            layer.set(key, std::move(v));
        };
        put("name", cells[0].text.empty() ? fmt::format("layer{}", count) : cells[0].text, cells[0].column);
        if (gemm) {
            std::uint64_t m = number(1, "M"), n = number(2, "N"), k = number(3, "K");
            put("ifmap_h", std::to_string(m), cells[1].column);
            put("ifmap_w", std::to_string(k), cells[3].column);
            put("filter_h", "1", cells[3].column);
            put("filter_w", std::to_string(k), cells[3].column);
            put("channels", "1", cells[3].column);
            put("filters", std::to_string(n), cells[2].column);
            put("stride", "1", cells[0].column);
        } else {
            static const char* names[] = {
                "",         "IFMAP Height", "IFMAP Width", "Filter Height", "Filter Width",
                "Channels", "Num Filter",   "Strides",     "Column stride"};
            static const char* keys[] = {"",         "ifmap_h", "ifmap_w", "filter_h", "filter_w",
                                         "channels", "filters", "stride",  "stride_w"};
            std::uint64_t v[9] = {};
            for (std::size_t i = 1; i < cells.size(); ++i) {
                v[i] = number(i, names[i]);
                put(keys[i], std::to_string(v[i]), cells[i].column);
            }
            if (v[3] > v[1])
                throw ConfigError(Location{path, lineNo, cells[3].column}, names[3],
                                  fmt::format("filter height {} exceeds the IFMAP height {}", v[3], v[1]));
            if (v[4] > v[2])
                throw ConfigError(Location{path, lineNo, cells[4].column}, names[4],
                                  fmt::format("filter width {} exceeds the IFMAP width {}", v[4], v[2]));
        }
        layers.append(std::move(layer));
        ++count;
    }
    if (count == 0)
        throw ConfigError(Location{path, lineNo > 0 ? lineNo : 1, 1}, "", "the topology has no layer rows");
    root.set("form", Node::makeScalar(gemm ? "gemm" : "conv", fileAt));
    root.set("layer", Node::makeScalar("all", fileAt));
    root.set("layers", std::move(layers));
    return root;
}

ScaleSimMapping scaleSimMapping(const ScaleSimLayer& l, unsigned rows, unsigned cols,
                                const std::string& dataflow) {
    ScaleSimMapping m;
    const std::uint64_t e = l.pixels(), k = l.window(), n = l.filters;
    if (dataflow == "os") {
        m.sr = e, m.sc = n, m.t = k;
    } else if (dataflow == "ws") {
        m.sr = k, m.sc = n, m.t = e;
    } else {
        m.sr = k, m.sc = e, m.t = n;
    }
    m.rowFolds = (m.sr + rows - 1) / rows;
    m.colFolds = (m.sc + cols - 1) / cols;
    m.cyclesPerFold = dataflow == "os" ? rows + cols + m.t - 2 : 2ull * rows + cols + m.t - 2;
    return m;
}

}  // namespace tessim
