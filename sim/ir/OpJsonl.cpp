#include "sim/ir/OpJsonl.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <ostream>
#include <regex>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sim/config/ConfigError.h"
#include "sim/config/JsonSyntax.h"
#include "sim/ir/OpTable.h"
#include "sim/ir/ScheduleFileStream.h"

namespace tessim {
namespace {

using Json = nlohmann::ordered_json;

void putReg(Json& j, const char* role, std::uint8_t r) {
    if (r == kNoReg)
        return;
    if (r >= kScalarRegBase)
        j[std::string("s") + role] = r - kScalarRegBase;
    else
        j[std::string("v") + role] = r;
}

const std::string& spaceName(const TargetInfo& t, std::uint8_t id) {
    for (const auto& s : t.spaces)
        if (s.id == id)
            return s.name;
    throw std::runtime_error(fmt::format("op refers to memory space {} that target '{}' lacks", id, t.name));
}

const std::string& groupName(const TargetInfo& t, std::uint8_t id) {
    for (const auto& g : t.groups)
        if (g.id == id)
            return g.name;
    throw std::runtime_error(
        fmt::format("op refers to multicast group {} that target '{}' lacks", id, t.name));
}

// An op with an immediate: always, or in place of a missing second source.
bool takesImmediate(const OpDescriptor& d, const Op& op) {
    return d.immediate == Immediate::Always ||
           (d.immediate == Immediate::InPlaceOfSs1 && op.src[1] == kNoReg);
}

Json opToJson(const std::string& engine, const Op& op, const TargetInfo& t) {
    Json j;
    j["engine"] = engine;
    const OpDescriptor& info = opInfo(op.kind);
    j["op"] = info.name;
    switch (info.layout) {
    case OpLayout::Transfer: {
        const DmaArgs& d = op.dma;
        j["tag"] = op.tag;
        j["channel"] = d.channel;
        j["src_mem"] = spaceName(t, d.srcSpace);
        j["src"] = d.src;
        j["dst_mem"] = spaceName(t, d.dstSpace);
        j["dst"] = d.dst;
        j["row_bytes"] = d.rowBytes;
        j["rows"] = d.rows;
        j["planes"] = d.planes;
        j["src_row_stride"] = d.srcRowStride;
        j["src_plane_stride"] = d.srcPlaneStride;
        j["dst_row_stride"] = d.dstRowStride;
        j["dst_plane_stride"] = d.dstPlaneStride;
        if (d.multicastCount) {
            j["multicast"] = d.multicastCount;
            j["multicast_stride"] = d.multicastStride;
        }
        if (d.group)
            j["group"] = groupName(t, d.group);
        break;
    }
    case OpLayout::TagWait: j["tag"] = op.tag; break;
    case OpLayout::Bare: break;
    case OpLayout::Mark:
        if (op.tag != 0)
            j["mark"] = op.tag;
        break;
    case OpLayout::Rendezvous:
        j["id"] = op.tag;
        j["count"] = op.count;
        break;
    case OpLayout::Signal: j["id"] = op.tag; break;
    case OpLayout::MacTile: {
        const MacTileArgs& m = op.mac;
        j["dtype"] = std::string(dtypeName(op.dtype));
        j["mem"] = spaceName(t, m.space);
        j["in"] = m.in;
        j["weights"] = m.weights;
        j["out"] = m.out;
        j["channels"] = m.channels;
        j["filters"] = m.filters;
        j["in_h"] = m.inH;
        j["in_w"] = m.inW;
        j["out_h"] = m.outH;
        j["out_w"] = m.outW;
        j["kh"] = m.kh;
        j["kw"] = m.kw;
        if (m.strideH == m.strideW) {
            j["stride"] = m.strideW;
        } else {
            j["stride_h"] = m.strideH;
            j["stride_w"] = m.strideW;
        }
        j["pad"] = m.pad;
        j["accumulate"] = m.accumulate != 0;
        if (m.inArray) {
            j["in_array"] = true;
            if (m.inArray == 2)
                j["drain"] = true;
        }
        if (op.flags & Op::kIdealOperands)
            j["ideal_operands"] = true;
        if (m.requantize) {
            j["requantize"] = true;
            j["multiplier"] = m.multiplier;
            j["shift"] = m.shift;
            j["out8"] = m.out8;
        }
        break;
    }
    case OpLayout::Branch:
        // The branch unit's energy is per dtype (branch_i32): a replay must time and cost it the same.
        j["dtype"] = std::string(dtypeName(op.dtype));
        putReg(j, "s0", op.src[0]);
        j["taken"] = (op.flags & Op::kTaken) != 0;
        if (op.flags & Op::kMispredicted)
            j["mispredicted"] = true;
        break;
    case OpLayout::Registers:
        j["dtype"] = std::string(dtypeName(op.dtype));
        putReg(j, "d", op.dst);
        putReg(j, "s0", op.src[0]);
        putReg(j, "s1", op.src[1]);
        putReg(j, "s2", op.src[2]);
        j["vl"] = op.vl;
        if (info.memory) {
            j["mem"] = spaceName(t, op.space);
            j["addr"] = op.addr;
            if (op.stride != 0)
                j["stride"] = op.stride;
            if (info.segment)
                j["nf"] = op.count;
            if (op.base != kNoReg)
                j["saddr"] = op.base - kScalarRegBase;
        }
        if (op.kind == OpKind::Slide && op.stride > 1)
            j["stride"] = op.stride;
        if (info.span == RegisterSpan::Convert)
            j["from"] = std::string(dtypeName(convertSource(op)));
        if (takesImmediate(info, op))
            j["imm"] = op.imm;
        if (info.lmul)
            j["lmul"] = op.imm > 0 ? op.imm : 1.0;  // the engine reads 0 as 1
        else if (!info.scalar && op.lmul8 != 0)
            j["lmul"] = op.lmul8 / 8.0;  // the register group the op is priced by, whatever its vl
        if (info.ordered && (op.flags & Op::kOrdered))
            j["ordered"] = true;
        if (op.kind == OpKind::Reduce && op.count == kReduceMax)
            j["max"] = true;
        if (info.word && (op.flags & Op::kWord))
            j["word"] = true;
        break;
    }
    if (op.flags & Op::kBundleStart)
        j["bundle"] = true;
    return j;
}

// A line's top-level fields, parsed without building a tree: a schedule line is a flat object, and
// this is most of the cost of reading one. Fields in file order; a repeated key keeps its last
// value, as nlohmann's parser does, and repeated() names it (the reader refuses it). A line that is not a
// flat object (nested values, not an object, bad JSON) is handed to nlohmann's parser, whose values and
// errors it then gives.
class FlatObject : public nlohmann::json_sax<nlohmann::json> {
public:
    using Field = std::pair<std::string, nlohmann::json>;

    // Parses `text`; a JSON syntax error throws nlohmann::json::parse_error.
    explicit FlatObject(const std::string& text) {
        fields_.reserve(24);
        if (nlohmann::json::sax_parse(text, this))
            return;
        fields_.clear();
        nlohmann::json j = nlohmann::json::parse(text);
        isObject_ = j.is_object();
        if (isObject_)
            for (auto& [key, value] : j.items())
                fields_.emplace_back(key, std::move(value));
    }
    bool isObject() const { return isObject_; }
    // The first key given twice ("" when none).
    const std::string& repeated() const { return repeated_; }
    const std::vector<Field>& fields() const { return fields_; }
    const nlohmann::json* find(const std::string& key) const {
        for (const Field& f : fields_)
            if (f.first == key)
                return &f.second;
        return nullptr;
    }

    bool null() override { return put(nullptr); }
    bool boolean(bool v) override { return put(v); }
    bool number_integer(number_integer_t v) override { return put(v); }
    bool number_unsigned(number_unsigned_t v) override { return put(v); }
    bool number_float(number_float_t v, const string_t&) override { return put(v); }
    bool string(string_t& v) override { return put(std::move(v)); }
    bool binary(binary_t&) override { return false; }
    bool start_object(std::size_t) override {
        if (started_)
            return false;  // a nested object
        started_ = true;
        return true;
    }
    bool key(string_t& k) override {
        key_ = std::move(k);
        return true;
    }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return false; }
    bool end_array() override { return false; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

private:
    template <class V> bool put(V&& v) {
        if (!started_)
            return false;
        for (Field& f : fields_)
            if (f.first == key_) {
                if (repeated_.empty())
                    repeated_ = key_;
                f.second = nlohmann::json(std::forward<V>(v));
                return true;
            }
        fields_.emplace_back(std::move(key_), nlohmann::json(std::forward<V>(v)));
        return true;
    }

    std::vector<Field> fields_;
    std::string key_;
    std::string repeated_;
    bool started_ = false;
    bool isObject_ = true;
};

class LineParser {
public:
    LineParser(const std::string& file, int line, const std::string& text, const TargetInfo& t)
        : file_(file), line_(line), text_(text), target_(t) {
        used_.reserve(24);
        try {
            j_.emplace(text);
        } catch (const nlohmann::json::parse_error& e) {
            throw config::ConfigError({file_, line_, static_cast<int>(e.byte)}, "",
                                      "invalid JSON: " + config::jsonSyntaxMessage(e));
        } catch (const nlohmann::json::out_of_range&) {
            numberOutOfRange();
        }
        if (!j_->isObject())
            fail("", "expected a JSON object");
        if (const std::string& twice = j_->repeated(); !twice.empty()) {
            const std::string quoted = "\"" + twice + "\"";
            const auto second = text_.find(quoted, text_.find(quoted) + 1);
            throw config::ConfigError(
                {file_, line_, second == std::string::npos ? 1 : static_cast<int>(second) + 1}, twice,
                "field '" + twice + "' is given twice on this line: which value was meant?");
        }
    }
    // A number beyond a double (1e400): the parser names no place, so find the first such
    // number and the key before it.
    [[noreturn]] void numberOutOfRange() const {
        static const std::regex number(R"re(("([^"\\]*)"\s*:\s*)(-?[0-9][0-9.]*(?:[eE][+-]?[0-9]+)?))re");
        for (auto it = std::sregex_iterator(text_.begin(), text_.end(), number); it != std::sregex_iterator();
             ++it) {
            const std::string value = (*it)[3];
            if (std::isinf(std::strtod(value.c_str(), nullptr)))
                throw config::ConfigError({file_, line_, static_cast<int>(it->position(3)) + 1}, (*it)[2],
                                          fmt::format("the number {} is beyond a double's range", value));
        }
        throw config::ConfigError({file_, line_, 1}, "", "a number is beyond a double's range");
    }
    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        int column = 1;
        if (!key.empty()) {
            auto pos = text_.find("\"" + key + "\"");
            if (pos != std::string::npos)
                column = static_cast<int>(pos) + 1;
        }
        throw config::ConfigError({file_, line_, column}, key, message);
    }
    bool has(const std::string& key) const { return j_->find(key) != nullptr; }
    template <class T> T get(const std::string& key) {
        used_.push_back(key);
        const nlohmann::json* v = j_->find(key);
        if (!v)
            fail(key, "missing required field '" + key + "'");
        return value<T>(key, *v);
    }
    template <class T> T get(const std::string& key, T fallback) {
        used_.push_back(key);
        const nlohmann::json* v = j_->find(key);
        return v ? value<T>(key, *v) : fallback;
    }
    std::uint8_t space(const std::string& key) {
        std::string name = get<std::string>(key);
        const MemorySpaceInfo* s = target_.findSpace(name);
        if (!s)
            fail(key, "target '" + target_.name + "' has no memory '" + name + "'");
        return s->id;
    }
    // A multicast group by name; 0 when the field is absent.
    std::uint8_t group(const std::string& key) {
        if (!has(key)) {
            used_.push_back(key);
            return 0;
        }
        std::string name = get<std::string>(key);
        const MulticastGroupInfo* g = target_.findGroup(name);
        if (!g)
            fail(key, "target '" + target_.name + "' has no multicast group '" + name + "'");
        return g->id;
    }
    // A register of `engine` (its own register counts, where the target gives them).
    std::uint8_t reg(const char* role, const EngineInfo& engine) {
        std::string v = std::string("v") + role, s = std::string("s") + role;
        if (has(v)) {
            auto r = get<std::uint64_t>(v);
            const unsigned count =
                engine.vectorRegisters ? std::min(engine.vectorRegisters, kVectorRegs) : kVectorRegs;
            if (r >= count)
                fail(v, fmt::format("vector register {} out of range: engine {} has v0..v{}", r, engine.name,
                                    count - 1));
            return static_cast<std::uint8_t>(r);
        }
        if (has(s)) {
            auto r = get<std::uint64_t>(s);
            const unsigned all = kRegIds - kScalarRegBase;
            const unsigned count = engine.scalarRegisters ? std::min(engine.scalarRegisters, all) : all;
            if (r >= count)
                fail(s, fmt::format("scalar register {} out of range: engine {} has s0..s{}", r, engine.name,
                                    count - 1));
            return static_cast<std::uint8_t>(kScalarRegBase + r);
        }
        return kNoReg;
    }
    // Refuses a field no get() asked for (the first in alphabetical order, where there are several).
    void finish() const {
        const std::string* unknown = nullptr;
        for (const auto& [key, value] : j_->fields())
            if (std::find(used_.begin(), used_.end(), key) == used_.end() && (!unknown || key < *unknown))
                unknown = &key;
        if (unknown)
            fail(*unknown, "unknown field '" + *unknown + "'");
    }

private:
    // Field `key`'s value as a T, or an error naming the field.
    template <class T> T value(const std::string& key, const nlohmann::json& v) const {
        if constexpr (std::is_same_v<T, bool>) {
            if (!v.is_boolean())
                fail(key, "field '" + key + "' expects true or false, not " + v.dump());
            return v.get<bool>();
        } else if constexpr (std::is_integral_v<T>) {
            return integer<T>(key, v);
        } else if constexpr (std::is_floating_point_v<T>) {
            if (!v.is_number())
                fail(key, "field '" + key + "' expects a number, not " + v.dump());
            return v.get<T>();
        } else {
            try {
                return v.get<T>();
            } catch (const nlohmann::json::exception&) {
                fail(key, "wrong type for field '" + key + "'");
            }
        }
    }

    // An integer field, range-checked against the type it is stored in (never truncated or
    // wrapped): 1.0, true and "1" are refused.
    template <class T> T integer(const std::string& key, const nlohmann::json& v) const {
        using Limits = std::numeric_limits<T>;
        // Formatted only for an error: integers are most of a schedule's fields.
        const auto range = [] { return fmt::format("{}..{}", Limits::min(), Limits::max()); };
        if (!v.is_number_integer())
            fail(key, "field '" + key + "' expects an integer in " + range() + ", not " + v.dump());
        bool inRange = false;
        if (v.is_number_unsigned())
            inRange = v.get<std::uint64_t>() <= static_cast<std::uint64_t>(Limits::max());
        else if constexpr (std::is_signed_v<T>)
            inRange = v.get<std::int64_t>() >= static_cast<std::int64_t>(Limits::min()) &&
                      v.get<std::int64_t>() <= static_cast<std::int64_t>(Limits::max());
        else
            inRange = v.get<std::int64_t>() >= 0 &&
                      static_cast<std::uint64_t>(v.get<std::int64_t>()) <= Limits::max();
        if (!inRange)
            fail(key, "field '" + key + "' = " + v.dump() + " is out of range " + range());
        return v.get<T>();
    }

    const std::string& file_;  // the caller's, which outlives the parser
    int line_;
    const std::string& text_;
    const TargetInfo& target_;
    std::optional<FlatObject> j_;
    std::vector<std::string> used_;
};

// An op line: the op, checked against the target and its engine; the engine's name in `engine`.
Op parseOp(LineParser& p, const TargetInfo& target, std::string& engine) {
    Op op;
    engine = p.get<std::string>("engine");
    const EngineInfo* engineInfo = target.findEngine(engine);
    if (!engineInfo)
        p.fail("engine", "target '" + target.name + "' has no engine '" + engine + "'");
    const EngineInfo& info = *engineInfo;
    std::string kindName = p.get<std::string>("op");
    const OpDescriptor* row = findOpKind(kindName);
    if (!row)
        p.fail("op", "unknown op '" + kindName + "'");
    const OpDescriptor& desc = *row;
    op.kind = desc.kind;
    if (p.get<bool>("bundle", false))
        op.flags |= Op::kBundleStart;
    auto dtype = [&]() {
        std::string d = p.get<std::string>("dtype", std::string("f32"));
        if (!parseDType(d, op.dtype))
            p.fail("dtype", "unknown dtype '" + d + "'");
    };
    switch (desc.layout) {
    case OpLayout::Transfer: {
        DmaArgs& d = op.dma;
        op.tag = p.get<std::uint32_t>("tag");
        if (info.dmaChannels == 0)
            p.fail("op", "engine " + engine + " has no DMA engine to start");
        d.channel = p.get<std::uint8_t>("channel", 0);
        if (d.channel >= info.dmaChannels)
            p.fail("channel", fmt::format("DMA channel {} out of range: engine {} starts channels 0..{}",
                                          d.channel, engine, info.dmaChannels - 1));
        d.srcSpace = p.space("src_mem");
        d.src = p.get<std::uint64_t>("src");
        d.dstSpace = p.space("dst_mem");
        d.dst = p.get<std::uint64_t>("dst");
        d.rowBytes = p.get<std::uint32_t>("row_bytes");
        d.rows = p.get<std::uint32_t>("rows", 1);
        d.planes = p.get<std::uint32_t>("planes", 1);
        d.srcRowStride = p.get<std::int64_t>("src_row_stride", d.rowBytes);
        d.srcPlaneStride = p.get<std::int64_t>("src_plane_stride", 0);
        d.dstRowStride = p.get<std::int64_t>("dst_row_stride", d.rowBytes);
        d.dstPlaneStride = p.get<std::int64_t>("dst_plane_stride", 0);
        d.multicastCount = p.get<std::uint8_t>("multicast", 0);
        d.multicastStride = p.get<std::uint64_t>("multicast_stride", 0);
        d.group = p.group("group");
        if (d.multicastCount > 0 && d.multicastStride == 0)
            p.fail("multicast_stride", "multicast to other memories names a group (\"group\": name)");
        if (d.rows == 0 || d.planes == 0 || d.rowBytes == 0)
            p.fail("row_bytes", "a DMA moves at least one byte");
        break;
    }
    case OpLayout::TagWait:
        op.tag = p.get<std::uint32_t>("tag");
        if (info.dmaChannels == 0)
            p.fail("op", "engine " + engine + " has no DMA engine to wait for");
        break;
    case OpLayout::Bare: break;
    case OpLayout::Mark: op.tag = p.get<std::uint32_t>("mark", 0); break;
    case OpLayout::Rendezvous:
        op.tag = p.get<std::uint32_t>("id");
        op.count = p.get<std::uint32_t>("count");
        if (op.count == 0)
            p.fail("count", "a " + kindName + " waits for at least one engine (count ≥ 1)");
        break;
    case OpLayout::Signal: op.tag = p.get<std::uint32_t>("id"); break;
    case OpLayout::Branch:
        dtype();
        op.src[0] = p.reg("s0", info);
        if (op.src[0] != kNoReg && !isScalarRegister(op.src[0]))
            p.fail("vs0", "a branch tests a scalar register (ss0)");
        if (p.get<bool>("taken"))
            op.flags |= Op::kTaken;
        if (p.get<bool>("mispredicted", false))
            op.flags |= Op::kMispredicted;
        break;
    case OpLayout::MacTile: {
        dtype();
        MacTileArgs& m = op.mac;
        m.space = p.space("mem");
        m.in = p.get<std::uint64_t>("in");
        m.weights = p.get<std::uint64_t>("weights");
        m.out = p.get<std::uint64_t>("out");
        m.channels = p.get<std::uint16_t>("channels");
        m.filters = p.get<std::uint16_t>("filters");
        m.inH = p.get<std::uint32_t>("in_h");
        m.inW = p.get<std::uint32_t>("in_w");
        m.outH = p.get<std::uint32_t>("out_h");
        m.outW = p.get<std::uint32_t>("out_w");
        m.kh = p.get<std::uint8_t>("kh");
        m.kw = p.get<std::uint8_t>("kw");
        // One stride both ways, or stride_h (rows) and stride_w (columns) apart.
        const std::uint8_t stride = p.get<std::uint8_t>("stride", 1);
        m.strideH = p.get<std::uint8_t>("stride_h", stride);
        m.strideW = p.get<std::uint8_t>("stride_w", stride);
        m.pad = p.get<std::uint8_t>("pad", 0);
        m.accumulate = p.get<bool>("accumulate", false) ? 1 : 0;
        if (p.get<bool>("ideal_operands", false))
            op.flags |= Op::kIdealOperands;
        // A tile that names its geometry (generated timing-only tiles leave it all 0) must be
        // one the array can compute: every output's window lies in the padded input.
        if (m.channels || m.filters || m.inH || m.inW || m.outH || m.outW || m.kh || m.kw) {
            if (m.kh == 0 || m.kw == 0 || m.strideH == 0 || m.strideW == 0)
                p.fail(m.kh == 0        ? "kh"
                       : m.kw == 0      ? "kw"
                       : m.strideH == 0 ? (p.has("stride_h") ? "stride_h" : "stride")
                                        : (p.has("stride_w") ? "stride_w" : "stride"),
                       "a kernel and its stride are at least 1");
            if (m.channels == 0 || m.filters == 0 || m.inH == 0 || m.inW == 0 || m.outH == 0 || m.outW == 0)
                p.fail("channels",
                       "a MacTile has at least one channel, filter, input and output row and column");
            for (const auto& [out, in, k, s, key] : {std::tuple{m.outH, m.inH, m.kh, m.strideH, "out_h"},
                                                     std::tuple{m.outW, m.inW, m.kw, m.strideW, "out_w"}})
                if (std::uint64_t{out - 1} * s + k > std::uint64_t{in} + 2u * m.pad)
                    p.fail(key,
                           fmt::format("{} outputs of a {}-wide kernel at stride {} need {} inputs with pad "
                                       "{}, the tile has {}",
                                       out, k, s, std::uint64_t{out - 1} * s + k - 2u * m.pad, m.pad, in));
        }
        m.inArray = p.get<bool>("in_array", false) ? 1 : 0;
        if (p.get<bool>("drain", false)) {
            if (!m.inArray)
                p.fail("drain", "'drain' empties the array's accumulators: it needs 'in_array: true'");
            m.inArray = 2;
        }
        m.requantize = p.get<bool>("requantize", false) ? 1 : 0;
        m.multiplier = p.get<std::int32_t>("multiplier", 1);
        const unsigned shift = p.get<unsigned>("shift", 0u);
        if (shift > 63)
            p.fail("shift", fmt::format("requantisation shift {} out of range 0..63", shift));
        m.shift = static_cast<std::uint8_t>(shift);
        m.out8 = p.get<std::uint64_t>("out8", 0);
        if (m.requantize && !p.has("out8"))
            p.fail("requantize", "a requantising MacTile needs 'out8' (where the INT8 outputs go)");
        break;
    }
    case OpLayout::Registers:
        dtype();
        // A unit executes only the datatypes it lists (its energy is priced for those alone).
        if (const auto k = static_cast<std::size_t>(op.kind);
            k < info.dtypesByKind.size() && info.dtypesByKind[k] != 0 &&
            !(info.dtypesByKind[k] >> static_cast<unsigned>(op.dtype) & 1u)) {
            std::vector<std::string> types;
            for (unsigned d = 0; d < kDTypeCount; ++d)
                if (info.dtypesByKind[k] >> d & 1u)
                    types.emplace_back(dtypeName(static_cast<DType>(d)));
            p.fail("dtype", fmt::format("no unit of engine {} executes {} in {} (its units for it: {})",
                                        engine, desc.name, dtypeName(op.dtype), fmt::join(types, ", ")));
        }
        op.dst = p.reg("d", info);
        op.src[0] = p.reg("s0", info);
        op.src[1] = p.reg("s1", info);
        op.src[2] = p.reg("s2", info);
        if (desc.needsDest && op.dst == kNoReg)
            p.fail(desc.scalar ? "sd" : "vd",
                   fmt::format("{} writes a register: vd (or sd) is required ({})", desc.name, desc.summary));
        for (unsigned i = 0; i < desc.sources; ++i)
            if (op.src[i] == kNoReg)
                p.fail(fmt::format("{}s{}", desc.scalar ? 's' : 'v', i),
                       fmt::format("{} reads {} source register{}: vs{} (or ss{}) is missing ({})", desc.name,
                                   desc.sources, desc.sources == 1 ? "" : "s", i, i, desc.summary));
        op.vl = p.get<std::uint32_t>("vl", 0);
        // One register (a group of up to 8 where the engine has them) holds the op's elements.
        if (!desc.scalar && !desc.lmul && info.registerBytes &&
            std::uint64_t{op.vl} * dtypeBytes(op.dtype) >
                std::uint64_t{info.registerBytes} * (info.registerGroups ? 8 : 1))
            p.fail("vl",
                   fmt::format("vl {} of {} exceeds what engine {} holds: {} B registers{}", op.vl,
                               dtypeName(op.dtype), engine, info.registerBytes,
                               info.registerGroups ? " in groups of at most 8" : ", no register groups"));
        if (desc.memory) {
            op.space = p.space("mem");
            op.addr = p.get<std::uint64_t>("addr");
            op.stride = p.get<std::int64_t>("stride", 0);
            if (desc.segment) {
                op.count = p.get<std::uint32_t>("nf");
                if (op.count < 1 || op.count > 8)
                    p.fail("nf", fmt::format("a segment has 1 to 8 fields, not {}", op.count));
                if (op.stride != 0)
                    p.fail("stride", "segment loads and stores are unit-stride");
            }
            // The scalar register the address comes from (optional: older streams lack it).
            if (p.has("saddr")) {
                const auto r = p.get<std::uint64_t>("saddr");
                if (r >= kRegIds - kScalarRegBase || (info.scalarRegisters && r >= info.scalarRegisters))
                    p.fail("saddr", fmt::format("scalar register {} out of range", r));
                op.base = static_cast<std::uint8_t>(kScalarRegBase + r);
            }
        }
        if (takesImmediate(desc, op)) {
            op.imm = p.get<double>("imm", 0.0);
            // A slide moves by whole elements, at most a register group's worth (the executor
            // turns it into an index).
            if (op.kind == OpKind::Slide && (op.imm != std::floor(op.imm) || std::fabs(op.imm) > 16777216.0))
                p.fail("imm", fmt::format(
                                  "a slide moves by a whole number of elements up to 2^24 either way, not {}",
                                  op.imm));
        }
        if (op.kind == OpKind::Slide && p.has("stride")) {
            // A shuffle configured by a stride: every stride-th element of up to three registers.
            op.stride = p.get<std::int64_t>("stride");
            if (op.stride < 1 || op.stride > 3)
                p.fail("stride", fmt::format("a slide's stride picks every 1st to 3rd element of its "
                                             "(up to three) sources, not every {}",
                                             op.stride));
            if (op.stride > 1 && op.imm < 0)
                p.fail("imm", "a strided slide starts at element imm ≥ 0 of its sources");
        }
        if (desc.lmul) {
            op.imm = p.get<double>("lmul", 1.0);
            if (op.imm != 1 && op.imm != 2 && op.imm != 4 && op.imm != 8)
                p.fail("lmul", "lmul must be 1, 2, 4 or 8");
        } else if (!desc.scalar && p.has("lmul")) {
            // A vector op's register group (LMUL, or a segment's fields × LMUL): its price.
            const double lmul = p.get<double>("lmul");
            const double eighths = lmul * 8;
            static constexpr double kGroups[] = {1, 2, 4, 8, 16, 32, 64};  // eighths of a register
            if (std::find(std::begin(kGroups), std::end(kGroups), eighths) == std::end(kGroups))
                p.fail("lmul", fmt::format("a vector op's lmul is 1/8, 1/4, 1/2, 1, 2, 4, 8 (up to 64 for "
                                           "a segment's fields × LMUL), not {}",
                                           lmul));
            op.lmul8 = static_cast<std::uint8_t>(eighths);
        }
        if (desc.span == RegisterSpan::Convert) {
            const std::string from = p.get<std::string>("from");
            DType source = DType::F32;
            if (!parseDType(from, source))
                p.fail("from", fmt::format("unknown dtype '{}' (i8, i16, i32, f16, f32, f64)", from));
            op.count = static_cast<std::uint32_t>(source);
            if (!p.has("lmul") && info.registerBytes)
                op.lmul8 = convertLmul8(op, info.registerBytes);  // priced by the wider group
        }
        if (desc.ordered && p.get<bool>("ordered", false))
            op.flags |= Op::kOrdered;
        if (op.kind == OpKind::Reduce && p.get<bool>("max", false))
            op.count = kReduceMax;
        if (desc.word && p.get<bool>("word", false))
            op.flags |= Op::kWord;
        break;
    }
    p.finish();
    return op;
}

}  // namespace

std::uint64_t writeSchedule(std::ostream& out, std::vector<EngineStream>& streams, const TargetInfo& target,
                            const ScheduleOrigin& origin) {
    nlohmann::ordered_json header;
    header["schema"] = "tessim.schedule/1";
    header["target"] = target.name;
    nlohmann::ordered_json spaces = nlohmann::ordered_json::object();
    for (const auto& s : target.spaces)
        spaces[s.name] = s.id;
    header["spaces"] = spaces;
    if (!origin.workload.empty())
        header["made_for"] = {{"workload", origin.workload},
                              {"workload_config", origin.workloadConfig},
                              {"plan", origin.plan},
                              {"plan_config", origin.planConfig}};
    out << header.dump() << '\n';
    std::uint64_t count = 0;
    // Engines are written one after another: each engine's stream keeps its order, which is all
    // the replay needs (engines synchronise through DMA tags, barriers and events, not line order).
    for (auto& es : streams) {
        while (const Op* op = es.stream->next()) {
            out << opToJson(es.engine, *op, target).dump() << '\n';
            ++count;
        }
    }
    return count;
}

bool readScheduleLine(std::istream& in, std::string& text) {
    text.clear();
    std::streambuf* buf = in.rdbuf();
    bool any = false;
    for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
        any = true;
        if (c == '\n')
            return true;
        text.push_back(static_cast<char>(c));
        if (text.size() > kMaxScheduleLineBytes)
            return true;
    }
    return any;
}

Op parseScheduleOp(const std::string& file, int line, const std::string& text, const TargetInfo& target,
                   std::string& engine) {
    LineParser p(file, line, text, target);
    return parseOp(p, target, engine);
}

// The file is read twice: once here, every line parsed and checked, so that a bad line is refused
// before the run starts and an empty schedule is refused at all; then again by each engine's
// ScheduleFileStream, a chunk at a time as the engine runs. This pass keeps per engine only a
// count and a bounded list of byte ranges, never the ops.
std::vector<EngineStream> readSchedule(const std::string& path, const TargetInfo& target,
                                       ScheduleOrigin* origin) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        throw config::ConfigError({path, 0, 0}, "", "schedule file does not exist");
    if (!std::filesystem::is_regular_file(status))
        throw config::ConfigError({path, 0, 0}, "",
                                  "a schedule is a regular file of JSON Lines (this is a directory, device "
                                  "or pipe)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw config::ConfigError({path, 0, 0}, "", "cannot open schedule file");
    std::vector<ScheduleFileStream::Index> perEngine;
    std::size_t previous = perEngine.max_size();  // the engine of the previous op line
    std::string text, engine;
    std::uint64_t offset = 0;
    int line = 0;
    bool header = false;
    while (readScheduleLine(in, text)) {
        if (line == std::numeric_limits<int>::max())
            throw config::ConfigError({path, line, 0}, "", "too many lines for a schedule");
        ++line;
        const std::uint64_t lineStart = offset;
        offset += text.size() + 1;
        if (text.size() > kMaxScheduleLineBytes)
            throw config::ConfigError({path, line, 1}, "",
                                      fmt::format("line longer than {} bytes: not a schedule of JSON Lines",
                                                  kMaxScheduleLineBytes));
        for (std::size_t i = 0; i < text.size(); ++i) {
            const auto c = static_cast<unsigned char>(text[i]);
            if (c < 0x20 && c != '\t' && c != '\r')
                throw config::ConfigError(
                    {path, line, static_cast<int>(i) + 1}, "",
                    fmt::format("binary byte 0x{:02x}: a schedule is JSON Lines text", c));
        }
        if (text.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        LineParser p(path, line, text, target);
        if (!header) {
            header = true;
            if (p.has("schema")) {
                if (p.get<std::string>("schema") != "tessim.schedule/1")
                    p.fail("schema", "unsupported schema (expected tessim.schedule/1)");
                const auto written = p.get<std::string>("target", std::string());
                if (!written.empty() && written != target.name)
                    p.fail("target", "schedule was written for target '" + written +
                                         "', this run's target is '" + target.name + "'");
                if (p.has("spaces")) {
                    // The numbering the writer saw: a schedule made for another version of the
                    // target (memories renamed, added or reordered) is refused, not reinterpreted.
                    const auto spaces = p.get<nlohmann::json>("spaces");
                    if (!spaces.is_object())
                        p.fail("spaces", "expected an object of memory name: id, as tessim emit writes it");
                    for (const auto& [name, id] : spaces.items()) {
                        const MemorySpaceInfo* space = target.findSpace(name);
                        if (!space)
                            p.fail("spaces",
                                   fmt::format("target '{}' has no memory '{}'", target.name, name));
                        if (!id.is_number_unsigned() || id.get<std::uint64_t>() != space->id)
                            p.fail("spaces", fmt::format("memory '{}' is {} here, not {}: the schedule was "
                                                         "written for another version of target '{}'",
                                                         name, space->id, id.dump(), target.name));
                    }
                }
                if (p.has("made_for")) {
                    const auto m = p.get<nlohmann::json>("made_for");
                    auto text = [&](const char* key) {
                        const bool ok = m.is_object() && m.contains(key) && m.at(key).is_string();
                        return ok ? m.at(key).get<std::string>() : std::string();
                    };
                    auto tree = [&](const char* key) {
                        return m.contains(key) ? nlohmann::ordered_json::parse(m.at(key).dump())
                                               : nlohmann::ordered_json();
                    };
                    if (text("workload").empty())
                        p.fail("made_for", "expected an object naming the workload (\"workload\": \"...\"), "
                                           "as tessim emit writes it");
                    if (origin)
                        *origin = {text("workload"), tree("workload_config"), text("plan"),
                                   tree("plan_config")};
                }
                p.finish();
                continue;
            }
            p.fail("", "a schedule starts with its header ({\"schema\":\"tessim.schedule/1\",\"target\":"
                       "\"<name>\"}), not with an op");
        }
        parseOp(p, target, engine);
        auto it = std::find_if(perEngine.begin(), perEngine.end(),
                               [&](const ScheduleFileStream::Index& e) { return e.engine == engine; });
        if (it == perEngine.end()) {
            perEngine.push_back(ScheduleFileStream::Index{engine, 0, {}});
            it = perEngine.end() - 1;
        }
        const auto index = static_cast<std::size_t>(it - perEngine.begin());
        it->add(lineStart, offset, line, index == previous);
        previous = index;
    }
    // An empty schedule would run in no time and report as if it had done something.
    if (perEngine.empty())
        throw config::ConfigError({path, std::max(line, 1), 1}, "",
                                  "the schedule has no op (an empty file, or a header alone)");
    // The streams share one copy of the target: the caller's may not outlive them.
    auto shared = std::make_shared<const TargetInfo>(target);
    std::vector<EngineStream> streams;
    for (auto& index : perEngine) {
        std::string name = index.engine;
        streams.push_back(
            EngineStream{name, std::make_unique<ScheduleFileStream>(path, std::move(index), shared)});
    }
    return streams;
}

}  // namespace tessim
