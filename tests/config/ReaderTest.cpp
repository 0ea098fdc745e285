#include "sim/config/Reader.h"

#include "sim/config/Loader.h"

#include "ConfigTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tessim::config {
namespace {

using test::expectAt;
using test::expectConfigError;
using ::testing::HasSubstr;

std::string lines(std::initializer_list<std::string> text) {
    std::string joined;
    for (const std::string& line : text) {
        joined += line + "\n";
    }
    return joined;
}

/// Keeps the tree alive next to the Reader that views it.
struct Parsed {
    explicit Parsed(const std::string& text) : root(loadYamlString(text, "r.yaml")), reader(root) {}
    Node root;
    Reader reader;
};

// ---------------------------------------------------------------------------------------------
// Typed values

TEST(ReaderTest, ReadsEveryScalarType) {
    Parsed p(lines({
        "flag: true",
        "off: False",
        "i64: -9000000000",
        "u64: 18446744073709551615",
        "hex: 0x40",
        "i: -7",
        "u32: 4294967295",
        "real: 2.5e-3",
        "whole: 3",
        "text: hello world",
        "number_text: 123",
        "quoted: \"42\"",
    }));
    Reader& r = p.reader;
    EXPECT_TRUE(r.get<bool>("flag"));
    EXPECT_FALSE(r.get<bool>("off"));
    EXPECT_EQ(r.get<int64_t>("i64"), -9000000000);
    EXPECT_EQ(r.get<uint64_t>("u64"), 18446744073709551615ull);
    EXPECT_EQ(r.get<uint64_t>("hex"), 64u);
    EXPECT_EQ(r.get<int>("i"), -7);
    EXPECT_EQ(r.get<uint32_t>("u32"), 4294967295u);
    EXPECT_EQ(r.get<double>("real"), 2.5e-3);
    EXPECT_EQ(r.get<double>("whole"), 3.0);
    EXPECT_EQ(r.get<std::string>("text"), "hello world");
    EXPECT_EQ(r.get<std::string>("number_text"), "123");
    EXPECT_EQ(r.get<int64_t>("quoted"), 42);
    r.finish();
}

TEST(ReaderTest, ReadsEveryQuantityType) {
    Parsed p(lines({
        "size: 512 KiB",
        "compact: 512KiB",
        "clock: 1.6 GHz",
        "bw: 25.6 GB/s",
        "latency: 10 ns",
        "energy: 1.5 pJ",
        "power: 250 mW",
    }));
    Reader& r = p.reader;
    EXPECT_EQ(r.get<Bytes>("size").value, 512u * 1024);
    EXPECT_EQ(r.get<Bytes>("compact").value, 512u * 1024);
    EXPECT_EQ(r.get<Frequency>("clock").hz, 1.6e9);
    EXPECT_EQ(r.get<Bandwidth>("bw").bytes_per_s, 25.6e9);
    EXPECT_EQ(r.get<Duration>("latency").seconds, 10e-9);
    EXPECT_EQ(r.get<Energy>("energy").joules, 1.5e-12);
    EXPECT_EQ(r.get<Power>("power").watts, 0.25);
    r.finish();
}

TEST(ReaderTest, ReadsLists) {
    Parsed p(lines({"ints: [1, -2, 3]", "reals: [0.5, 2]", "names:", "  - a", "  - b c", "empty: []"}));
    Reader& r = p.reader;
    EXPECT_EQ(r.get<std::vector<int64_t>>("ints"), (std::vector<int64_t>{1, -2, 3}));
    EXPECT_EQ(r.get<std::vector<double>>("reals"), (std::vector<double>{0.5, 2.0}));
    EXPECT_EQ(r.get<std::vector<std::string>>("names"), (std::vector<std::string>{"a", "b c"}));
    EXPECT_TRUE(r.get<std::vector<int64_t>>("empty").empty());
    r.finish();
}

TEST(ReaderTest, FallbacksApplyWhenAbsentOrEmpty) {
    Parsed p(lines({"present: 5", "blank:", "tilde: ~"}));
    Reader& r = p.reader;
    EXPECT_EQ(r.get<int64_t>("present", 1), 5);
    EXPECT_EQ(r.get<int64_t>("absent", 1), 1);
    EXPECT_EQ(r.get("blank", 2.5), 2.5);
    EXPECT_EQ(r.get<std::string>("tilde", "dflt"), "dflt");
    EXPECT_EQ(r.get("absent_text", "literal"), "literal");
    EXPECT_EQ(r.get("absent_size", Bytes{64}).value, 64u);
    EXPECT_EQ(r.get("absent_list", std::vector<std::string>{"x"}), std::vector<std::string>{"x"});
    EXPECT_TRUE(r.get("absent_flag", true));
    r.finish();
}

// ---------------------------------------------------------------------------------------------
// The echo of what was read (a kernel's resolved workload and plan)

TEST(ReaderTest, EchoHoldsWhatWasReadInReadOrderWithFallbacksAndSiUnits) {
    Parsed p(lines({"zeta: 3", "size: 4 KiB", "clock: 1.5 GHz", "mode: fast", "skipped: 1", "peeked: 2",
                    "inner:", "  a: 1", "rows:", "  - x: 1", "  - x: 2", "name: n", "description: d"}));
    Reader& r = p.reader;
    r.get<int>("zeta");
    r.get<Bytes>("size");
    r.get<Frequency>("clock");
    r.oneOf("mode", {"fast", "slow"});
    r.get<unsigned>("unroll", 8u, Range<unsigned>{1, 16});  // absent: its default is echoed
    r.get<std::string>("label", std::string());             // absent, no value: not echoed
    r.ignore("skipped");
    EXPECT_TRUE(r.has("peeked"));
    r.node("peeked");
    r.child("inner").get<int>("a");
    for (Reader& row : r.children("rows"))
        row.get<int>("x");
    EXPECT_TRUE(r.children("none").empty());  // absent: no rows, not echoed
    r.get<std::string>("name");
    r.get<std::string>("description");
    r.unecho("description");
    r.get<int>("zeta");  // read again: keeps its place
    r.finish();
    const nlohmann::ordered_json expected = nlohmann::ordered_json::parse(
        R"({"zeta": 3, "size": 4096, "clock": 1.5e9, "mode": "fast", "unroll": 8, "inner": {"a": 1},
            "rows": [{"x": 1}, {"x": 2}], "name": "n"})");
    EXPECT_EQ(r.echo(), expected) << r.echo().dump();
    EXPECT_EQ(r.echo().dump(), expected.dump());  // the order too
}

TEST(ReaderTest, MissingRequiredKeyIsAtTheParentMap) {
    Parsed p(lines({
        "name: npu",           // 1
        "dram:",               // 2
        "  frequency: 1 GHz",  // 3
    }));
    const ConfigError top = expectConfigError([&] { p.reader.get<int64_t>("cores"); });
    expectAt(top, "r.yaml", 1, 1, "cores");
    EXPECT_EQ(top.detail(), "missing required key");
    EXPECT_STREQ(top.what(), "r.yaml:1:1: error: cores: missing required key");

    Reader dram = p.reader.child("dram");
    const ConfigError nested = expectConfigError([&] { dram.get<Bytes>("size"); });
    expectAt(nested, "r.yaml", 3, 3, "dram.size");
    EXPECT_EQ(nested.detail(), "missing required key");

    const ConfigError child = expectConfigError([&] { dram.child("timing"); });
    expectAt(child, "r.yaml", 3, 3, "dram.timing");
    const ConfigError choice = expectConfigError([&] { dram.oneOf("policy", {"open", "closed"}); });
    expectAt(choice, "r.yaml", 3, 3, "dram.policy");
    const ConfigError raw = expectConfigError([&] { dram.node("raw"); });
    expectAt(raw, "r.yaml", 3, 3, "dram.raw");
}

TEST(ReaderTest, MissingRequiredKeyPointsOutAMisspelling) {
    Parsed p(lines({"frequncy: 1 GHz"}));
    const ConfigError error = expectConfigError([&] { p.reader.get<Frequency>("frequency"); });
    EXPECT_EQ(error.detail(), "missing required key; is it misspelt as 'frequncy'?");
}

TEST(ReaderTest, WrongTypeNamesWhatWasExpectedAndWhatWasFound) {
    Parsed p(lines({
        "count: abc",         // 1
        "ratio: 1.5x",        // 2
        "flag: yes",          // 3
        "nested: {a: 1}",     // 4
        "list: [1, two, 3]",  // 5
        "scalar_list: 5",     // 6
        "frac: 1.5",          // 7
        "empty:",             // 8
        "name: [a]",          // 9
    }));
    Reader& r = p.reader;
    const ConfigError count = expectConfigError([&] { r.get<int64_t>("count"); });
    expectAt(count, "r.yaml", 1, 8, "count");
    EXPECT_EQ(count.detail(), "expected an integer, got 'abc'");
    EXPECT_STREQ(count.what(), "r.yaml:1:8: error: count: expected an integer, got 'abc'");

    const ConfigError ratio = expectConfigError([&] { r.get<double>("ratio"); });
    expectAt(ratio, "r.yaml", 2, 8, "ratio");
    EXPECT_EQ(ratio.detail(), "expected a number, got '1.5x'");

    const ConfigError flag = expectConfigError([&] { r.get<bool>("flag"); });
    expectAt(flag, "r.yaml", 3, 7, "flag");
    EXPECT_EQ(flag.detail(), "expected true or false, got 'yes'");

    const ConfigError nested = expectConfigError([&] { r.get<int>("nested"); });
    expectAt(nested, "r.yaml", 4, 9, "nested");
    EXPECT_EQ(nested.detail(), "expected an integer, got a map");

    const ConfigError item = expectConfigError([&] { r.get<std::vector<int64_t>>("list"); });
    expectAt(item, "r.yaml", 5, 11, "list[1]");
    EXPECT_EQ(item.detail(), "expected an integer, got 'two'");

    const ConfigError notList = expectConfigError([&] { r.get<std::vector<double>>("scalar_list"); });
    expectAt(notList, "r.yaml", 6, 14, "scalar_list");
    EXPECT_EQ(notList.detail(), "expected a list of numbers, got '5'");

    const ConfigError frac = expectConfigError([&] { r.get<uint32_t>("frac"); });
    EXPECT_EQ(frac.detail(), "expected an integer, got '1.5'");

    const ConfigError empty = expectConfigError([&] { r.get<std::string>("empty"); });
    expectAt(empty, "r.yaml", 8, 1, "empty");
    EXPECT_EQ(empty.detail(), "expected a string, got nothing");

    const ConfigError name = expectConfigError([&] { r.get<std::string>("name"); });
    EXPECT_EQ(name.detail(), "expected a string, got a list");
}

TEST(ReaderTest, IntegersOutsideTheTypeAreRejected) {
    Parsed p(lines({"big: 3000000000", "neg: -1", "huge: 99999999999999999999", "plus: +5", "under: 1_000"}));
    Reader& r = p.reader;
    EXPECT_EQ(expectConfigError([&] { r.get<int>("big"); }).detail(),
              "expected an integer from -2147483648 to 2147483647, got '3000000000'");
    EXPECT_EQ(r.get<uint32_t>("big"), 3000000000u);
    EXPECT_EQ(expectConfigError([&] { r.get<uint64_t>("neg"); }).detail(),
              "expected a non-negative integer, got '-1'");
    EXPECT_EQ(expectConfigError([&] { r.get<uint32_t>("neg"); }).detail(),
              "expected a non-negative integer, got '-1'");
    EXPECT_EQ(expectConfigError([&] { r.get<int64_t>("huge"); }).detail(),
              "expected an integer from -9223372036854775808 to 9223372036854775807, got "
              "'99999999999999999999'");
    EXPECT_EQ(expectConfigError([&] { r.get<int64_t>("plus"); }).detail(), "expected an integer, got '+5'");
    EXPECT_EQ(expectConfigError([&] { r.get<int64_t>("under"); }).detail(),
              "expected an integer, got '1_000'");
}

TEST(ReaderTest, NumbersMustBeFinite) {
    Parsed p(lines({"inf: inf", "nan: nan", "yinf: .inf", "big: 1e999", "plus: +2", "dot: .5"}));
    Reader& r = p.reader;
    for (const std::string key : {"inf", "nan", "yinf", "big"}) {
        SCOPED_TRACE(key);
        EXPECT_THAT(expectConfigError([&] { r.get<double>(key); }).detail(), HasSubstr("expected a number"));
    }
    EXPECT_EQ(r.get<double>("plus"), 2.0);
    EXPECT_EQ(r.get<double>("dot"), 0.5);
}

TEST(ReaderTest, QuantityErrorsCarryTheUnitReason) {
    Parsed p(lines({
        "size: 512",      // 1
        "bad: 512 Kib",   // 2
        "family: 12 ns",  // 3
        "clock: 1",       // 4
        "map: {a: 1}",    // 5
    }));
    Reader& r = p.reader;
    const ConfigError missing = expectConfigError([&] { r.get<Bytes>("size"); });
    expectAt(missing, "r.yaml", 1, 7, "size");
    EXPECT_EQ(missing.detail(), "expected a size with a unit, like 512 KiB");

    const ConfigError bad = expectConfigError([&] { r.get<Bytes>("bad"); });
    expectAt(bad, "r.yaml", 2, 6, "bad");
    EXPECT_THAT(bad.detail(), HasSubstr("unknown unit 'Kib'"));
    EXPECT_THAT(bad.detail(), HasSubstr("did you mean 'KiB'?"));

    const ConfigError family = expectConfigError([&] { r.get<Bytes>("family"); });
    expectAt(family, "r.yaml", 3, 9, "family");
    EXPECT_THAT(family.detail(), HasSubstr("'12 ns' is a duration, but expected a size"));

    const ConfigError clock = expectConfigError([&] { r.get<Frequency>("clock"); });
    EXPECT_EQ(clock.detail(), "expected a frequency with a unit, like 1 GHz");

    const ConfigError map = expectConfigError([&] { r.get<Power>("map"); });
    EXPECT_EQ(map.detail(), "expected a power with a unit, like 250 mW, got a map");
}

// ---------------------------------------------------------------------------------------------
// Ranges and choices

TEST(ReaderTest, RangesAreInclusiveAndNamedInTheError) {
    Parsed p(lines({
        "ways: 70000",     // 1
        "low: 1",          // 2
        "high: 65535",     // 3
        "ratio: 1.5",      // 4
        "cache: 512 KiB",  // 5
        "clock: 3 GHz",    // 6
        "neg: -3",         // 7
    }));
    Reader& r = p.reader;
    const Range<int64_t> ways{1, 65535};
    EXPECT_EQ(r.get("low", ways), 1);
    EXPECT_EQ(r.get("high", ways), 65535);
    const ConfigError error = expectConfigError([&] { r.get("ways", ways); });
    expectAt(error, "r.yaml", 1, 7, "ways");
    EXPECT_EQ(error.detail(), "70000 is out of range: it must be between 1 and 65535");

    EXPECT_EQ(expectConfigError([&] {
                  r.get("ratio", Range<double>{0.0, 1.0});
              }).detail(),
              "1.5 is out of range: it must be between 0 and 1");
    EXPECT_EQ(expectConfigError([&] {
                  r.get("cache", Range<Bytes>{Bytes{1024}, Bytes{256 * 1024}});
              }).detail(),
              "512 KiB is out of range: it must be between 1 KiB and 256 KiB");
    EXPECT_EQ(expectConfigError([&] {
                  r.get("clock", Range<Frequency>{Frequency{100e6}, Frequency{2e9}});
              }).detail(),
              "3 GHz is out of range: it must be between 100 MHz and 2 GHz");
    EXPECT_EQ(expectConfigError([&] { r.get("neg", Range<int>::atLeast(0)); }).detail(),
              "-3 is out of range: it must be at least 0");
    EXPECT_EQ(expectConfigError([&] { r.get("ratio", Range<double>::atMost(1.0)); }).detail(),
              "1.5 is out of range: it must be at most 1");
    EXPECT_EQ(r.get("clock", Range<Frequency>::atLeast(Frequency{1e9})).hz, 3e9);
}

TEST(ReaderTest, RangeWithFallback) {
    Parsed p(lines({"ways: 8", "bad: 0"}));
    Reader& r = p.reader;
    EXPECT_EQ(r.get<int64_t>("ways", 4, Range<int64_t>{1, 16}), 8);
    EXPECT_EQ(r.get<int64_t>("absent", 4, Range<int64_t>{1, 16}), 4);
    EXPECT_EQ(r.get("absent2", 4, Range<uint32_t>{1, 16}), 4u);
    EXPECT_EQ(r.get("absent3", Bytes{64}, Range<Bytes>::atLeast(Bytes{1})).value, 64u);
    const ConfigError error = expectConfigError([&] { r.get<int64_t>("bad", 4, Range<int64_t>{1, 16}); });
    expectAt(error, "r.yaml", 2, 6, "bad");
    EXPECT_EQ(error.detail(), "0 is out of range: it must be between 1 and 16");
}

TEST(ReaderTest, OneOfAcceptsOnlyTheListedChoices) {
    Parsed p(lines({"dataflow: ws", "policy: opne-page"}));
    Reader& r = p.reader;
    EXPECT_EQ(r.oneOf("dataflow", {"ws", "os", "is"}), "ws");
    EXPECT_EQ(r.oneOf("absent", {"a", "b"}, "b"), "b");
    const ConfigError error = expectConfigError([&] { r.oneOf("policy", {"open-page", "closed-page"}); });
    expectAt(error, "r.yaml", 2, 9, "policy");
    EXPECT_EQ(error.detail(), "expected one of 'open-page', 'closed-page', got 'opne-page'; did you mean "
                              "'open-page'?");
}

// ---------------------------------------------------------------------------------------------
// Children and finish()

TEST(ReaderTest, FinishReportsAnUnknownKeyWithASuggestion) {
    Parsed p(lines({
        "name: npu",        // 1
        "frequncy: 1 GHz",  // 2
    }));
    Reader& r = p.reader;
    EXPECT_EQ(r.get<std::string>("name"), "npu");
    EXPECT_EQ(r.get("frequency", Frequency{5e8}).hz, 5e8);
    const ConfigError error = expectConfigError([&] { r.finish(); });
    expectAt(error, "r.yaml", 2, 1, "frequncy");
    EXPECT_EQ(error.detail(), "unknown key 'frequncy'; did you mean 'frequency'?");
    EXPECT_STREQ(error.what(),
                 "r.yaml:2:1: error: frequncy: unknown key 'frequncy'; did you mean 'frequency'?");
}

TEST(ReaderTest, FinishWithoutAnyCloseKeyGivesNoSuggestion) {
    Parsed p(lines({"name: npu", "completely_different: 1"}));
    p.reader.get<std::string>("name");
    EXPECT_EQ(expectConfigError([&] { p.reader.finish(); }).detail(), "unknown key 'completely_different'");
}

TEST(ReaderTest, ExpectKeysFeedSuggestions) {
    Parsed p(lines({"mode: a", "bnaks: 4"}));
    p.reader.oneOf("mode", {"a", "b"});
    p.reader.expectKeys({"banks", "rows"});
    EXPECT_EQ(expectConfigError([&] { p.reader.finish(); }).detail(),
              "unknown key 'bnaks'; did you mean 'banks'?");
}

TEST(ReaderTest, HasDoesNotConsumeButIgnoreDoes) {
    Parsed p(lines({"a: 1", "b: 2", "c:"}));
    Reader& r = p.reader;
    EXPECT_TRUE(r.has("a"));
    EXPECT_TRUE(r.has("c"));
    EXPECT_FALSE(r.has("zzz"));
    r.ignore("b");
    r.ignore("c");
    const ConfigError error = expectConfigError([&] { r.finish(); });
    EXPECT_EQ(error.key(), "a");
    r.get<int>("a");
    r.finish();
}

TEST(ReaderTest, FinishChecksNestedChildrenInFileOrder) {
    Parsed p(lines({
        "dram:",            // 1
        "  size: 1 GiB",    // 2
        "  timing:",        // 3
        "    tRCD: 14 ns",  // 4
        "    tRPP: 14 ns",  // 5
        "name: npu",        // 6
        "colour: red",      // 7
    }));
    Reader& r = p.reader;
    Reader dram = r.child("dram");
    dram.get<Bytes>("size");
    Reader timing = dram.child("timing");
    timing.get<Duration>("tRCD");
    timing.get<Duration>("tRP", Duration{1e-9});
    r.get<std::string>("name");
    // The nested unknown key comes first in the file, so it is reported first.
    const ConfigError nested = expectConfigError([&] { r.finish(); });
    expectAt(nested, "r.yaml", 5, 5, "dram.timing.tRPP");
    EXPECT_EQ(nested.detail(), "unknown key 'tRPP'; did you mean 'tRP'?");
    // A child can be finished on its own as well.
    EXPECT_EQ(expectConfigError([&] { timing.finish(); }).key(), "dram.timing.tRPP");
    EXPECT_EQ(expectConfigError([&] { dram.finish(); }).key(), "dram.timing.tRPP");
    timing.ignore("tRPP");
    dram.finish();
    const ConfigError top = expectConfigError([&] { r.finish(); });
    expectAt(top, "r.yaml", 7, 1, "colour");
}

TEST(ReaderTest, FinishChecksChildrenInLists) {
    Parsed p(lines({
        "layers:",      // 1
        "  - name: a",  // 2
        "    k: 3",     // 3
        "  - name: b",  // 4
        "    kk: 3",    // 5
    }));
    Reader& r = p.reader;
    std::vector<Reader> layers = r.children("layers");
    ASSERT_EQ(layers.size(), 2u);
    EXPECT_EQ(layers[1].path(), "layers[1]");
    for (const Reader& layer : layers) {
        layer.get<std::string>("name");
        layer.get<int64_t>("k", 1);
    }
    const ConfigError error = expectConfigError([&] { r.finish(); });
    expectAt(error, "r.yaml", 5, 5, "layers[1].kk");
    EXPECT_EQ(error.detail(), "unknown key 'kk'; did you mean 'k'?");
}

TEST(ReaderTest, UnreadChildIsStillChecked) {
    Parsed p(lines({"dram:", "  size: 1 GiB"}));
    p.reader.child("dram");
    EXPECT_EQ(expectConfigError([&] { p.reader.finish(); }).key(), "dram.size");
    Parsed q(lines({"dram:", "  size: 1 GiB"}));
    q.reader.node("dram");
    q.reader.finish();  // node() hands the subtree over unchecked
}

TEST(ReaderTest, AskingForAChildTwiceSharesWhatWasRead) {
    Parsed p(lines({"dram:", "  size: 1 GiB", "  banks: 8", "layers:", "  - k: 1", "    s: 2"}));
    p.reader.child("dram").get<Bytes>("size");
    p.reader.optionalChild("dram")->get<int>("banks");
    p.reader.children("layers")[0].get<int>("k");
    p.reader.children("layers")[0].get<int>("s");
    p.reader.finish();
}

TEST(ReaderTest, OptionalChildAndChildren) {
    Parsed p(lines({"cache:", "  ways: 4", "empty:", "list: []", "nothing:"}));
    Reader& r = p.reader;
    std::optional<Reader> cache = r.optionalChild("cache");
    ASSERT_TRUE(cache.has_value());
    EXPECT_EQ(cache->get<int>("ways"), 4);
    EXPECT_FALSE(r.optionalChild("absent").has_value());
    std::optional<Reader> empty = r.optionalChild("empty");
    ASSERT_TRUE(empty.has_value());
    EXPECT_EQ(empty->get<int>("ways", 2), 2);
    EXPECT_TRUE(r.children("list").empty());
    EXPECT_TRUE(r.children("nothing").empty());
    EXPECT_TRUE(r.children("absent").empty());
    r.finish();
}

TEST(ReaderTest, ChildKindErrors) {
    Parsed p(lines({
        "scalar: 5",    // 1
        "map: {a: 1}",  // 2
        "list:",        // 3
        "  - {a: 1}",   // 4
        "  - 7",        // 5
    }));
    Reader& r = p.reader;
    const ConfigError child = expectConfigError([&] { r.child("scalar"); });
    expectAt(child, "r.yaml", 1, 9, "scalar");
    EXPECT_EQ(child.detail(), "expected a map, got a value");
    const ConfigError children = expectConfigError([&] { r.children("map"); });
    expectAt(children, "r.yaml", 2, 6, "map");
    EXPECT_EQ(children.detail(), "expected a list of maps, got a map");
    const ConfigError item = expectConfigError([&] { r.children("list"); });
    expectAt(item, "r.yaml", 5, 5, "list[1]");
    EXPECT_EQ(item.detail(), "expected a map, got a value");
    const ConfigError root = expectConfigError([] {
        const Node list = loadYamlString("[1, 2]\n", "l.yaml");
        Reader reader(list);
    });
    expectAt(root, "l.yaml", 1, 1, "");
    EXPECT_EQ(root.detail(), "expected a map, got a list");
}

TEST(ReaderTest, FailReportsAtTheKeyOrTheMap) {
    Parsed p(lines({
        "dram:",          // 1
        "  size: 1 GiB",  // 2
        "  line: 96 B",   // 3
    }));
    Reader dram = p.reader.child("dram");
    const ConfigError atKey = expectConfigError([&] { dram.fail("line", "must divide the size"); });
    expectAt(atKey, "r.yaml", 3, 3, "dram.line");
    EXPECT_EQ(atKey.detail(), "must divide the size");
    const ConfigError atMap = expectConfigError([&] { dram.fail("banks", "needed for x"); });
    expectAt(atMap, "r.yaml", 2, 3, "dram.banks");
}

TEST(ReaderTest, NodeAndSelfGiveRawAccess) {
    Parsed p(lines({"any: {x: [1, 2]}", "other: 1"}));
    Reader& r = p.reader;
    EXPECT_EQ(&r.self(), &p.root);
    const Node& any = r.node("any");
    EXPECT_TRUE(any.isMap());
    EXPECT_EQ(any.path(), "any");
    r.ignore("other");
    r.finish();
}

TEST(ReaderTest, CopiesShareBookkeeping) {
    Parsed p(lines({"a: 1", "b: 2"}));
    Reader copy = p.reader;
    copy.get<int>("a");
    p.reader.get<int>("b");
    copy.finish();
    p.reader.finish();
}

}  // namespace
}  // namespace tessim::config
