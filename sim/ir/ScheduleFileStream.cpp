#include "sim/ir/ScheduleFileStream.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/ConfigError.h"
#include "sim/ir/OpJsonl.h"

namespace tessim {
namespace {

// The value of the top-level "engine" field of a JSON object line (the last one, as the parser
// keeps it), read without parsing the line; nullopt where that cannot be done cheaply (escapes in
// a key or the name, a line that is not a plain object): the caller then parses the line.
std::optional<std::string_view> engineField(std::string_view s) {
    std::size_t i = 0;
    auto skipSpace = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            ++i;
    };
    // A string at i without escapes: its contents; i moves past it.
    auto plainString = [&]() -> std::optional<std::string_view> {
        const std::size_t close = s.find('"', i + 1);
        if (close == std::string_view::npos)
            return std::nullopt;
        const std::string_view text = s.substr(i + 1, close - i - 1);
        if (text.find('\\') != std::string_view::npos)
            return std::nullopt;
        i = close + 1;
        return text;
    };
    // Any value at i; i moves past it. Nested strings may hold escapes, brackets of every kind.
    auto skipValue = [&]() -> bool {
        int depth = 0;
        for (; i < s.size(); ++i) {
            const char c = s[i];
            if (c == '"') {
                for (++i; i < s.size() && s[i] != '"'; ++i)
                    if (s[i] == '\\')
                        ++i;
                if (i >= s.size())
                    return false;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (depth == 0)
                    return true;
                if (--depth == 0) {
                    ++i;
                    return true;
                }
            } else if (c == ',' && depth == 0) {
                return true;
            }
        }
        return depth == 0;
    };
    std::optional<std::string_view> engine;
    skipSpace();
    if (i >= s.size() || s[i] != '{')
        return std::nullopt;
    ++i;
    for (;;) {
        skipSpace();
        if (i < s.size() && s[i] == '}')
            return engine;
        if (i >= s.size() || s[i] != '"')
            return std::nullopt;
        const auto key = plainString();
        if (!key)
            return std::nullopt;
        skipSpace();
        if (i >= s.size() || s[i] != ':')
            return std::nullopt;
        ++i;
        skipSpace();
        if (*key == "engine") {
            if (i >= s.size() || s[i] != '"' || !(engine = plainString()))
                return std::nullopt;
        } else if (!skipValue()) {
            return std::nullopt;
        }
        skipSpace();
        if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
        }
        if (i < s.size() && s[i] == '}')
            return engine;
        return std::nullopt;
    }
}

}  // namespace

void ScheduleFileStream::Index::add(std::uint64_t begin, std::uint64_t end, int line, bool followsLast) {
    ++ops;
    if (followsLast && !extents.empty()) {
        extents.back().end = end;
        return;
    }
    extents.push_back(Extent{begin, end, line});
    if (extents.size() <= kMaxExtents)
        return;
    // Merge neighbours: half as many ranges, each also holding the other engines' lines between.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < extents.size(); i += 2) {
        Extent merged = extents[i];
        if (i + 1 < extents.size())
            merged.end = extents[i + 1].end;
        extents[kept++] = merged;
    }
    extents.resize(kept);
}

ScheduleFileStream::ScheduleFileStream(const std::string& path, Index index,
                                       std::shared_ptr<const TargetInfo> target)
    : path_(path), index_(std::move(index)), target_(std::move(target)), in_(path, std::ios::binary) {
    if (!in_)
        throw config::ConfigError({path_, 0, 0}, "", "cannot open schedule file");
    seekExtent(0);
}

void ScheduleFileStream::seekExtent(std::size_t extent) {
    extent_ = extent;
    if (extent_ == index_.extents.size())
        return;
    const Extent& e = index_.extents[extent_];
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(e.begin));
    position_ = e.begin;
    line_ = e.firstLine - 1;
}

void ScheduleFileStream::changed() const {
    throw config::ConfigError(
        {path_, line_, 0}, "",
        fmt::format("the schedule file changed while it was replayed: engine {} had {} ops when it was "
                    "checked, {} read since",
                    index_.engine, index_.ops, opsRead_));
}

std::vector<int> ScheduleFileStream::linesOf(const std::string& path, const std::vector<OpRef>& ops) {
    std::vector<int> lines(ops.size(), 0);
    std::map<std::pair<std::string, std::uint64_t>, std::vector<std::size_t>> wanted;
    for (std::size_t i = 0; i < ops.size(); ++i)
        wanted[{ops[i].engine, ops[i].index}].push_back(i);
    std::map<std::string, std::uint64_t> opsSeen;  // by engine
    std::ifstream in(path, std::ios::binary);
    std::string text;
    bool first = true;
    for (int line = 1; !wanted.empty() && readScheduleLine(in, text); ++line) {
        if (text.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        // The first line is the header where it names a schema.
        if (std::exchange(first, false)) {
            const auto j = nlohmann::json::parse(text, nullptr, false);
            if (j.is_object() && j.contains("schema"))
                continue;
        }
        std::string engine;
        if (const auto named = engineField(text)) {
            engine = std::string(*named);
        } else {
            const auto j = nlohmann::json::parse(text, nullptr, false);
            if (!j.is_object() || !j.contains("engine") || !j["engine"].is_string())
                continue;
            engine = j["engine"].get<std::string>();
        }
        const auto it = wanted.find({engine, opsSeen[engine]++});
        if (it == wanted.end())
            continue;
        for (std::size_t i : it->second)
            lines[i] = line;
        wanted.erase(it);
    }
    return lines;
}

bool ScheduleFileStream::refill(std::vector<Op>& out) {
    while (out.size() < kChunkOps && extent_ < index_.extents.size()) {
        if (position_ >= index_.extents[extent_].end) {
            seekExtent(extent_ + 1);
            continue;
        }
        if (!readScheduleLine(in_, text_))
            changed();
        position_ += text_.size() + 1;
        ++line_;
        if (text_.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        if (const auto named = engineField(text_); named && *named != index_.engine)
            continue;
        const Op op = parseScheduleOp(path_, line_, text_, *target_, engine_);
        if (engine_ != index_.engine)
            continue;
        if (opsRead_ == index_.ops)
            changed();
        out.push_back(op);
        ++opsRead_;
    }
    if (out.empty() && opsRead_ != index_.ops)
        changed();
    largestChunk_ = std::max(largestChunk_, out.size());
    return !out.empty();
}

}  // namespace tessim
