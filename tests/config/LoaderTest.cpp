#include "sim/config/Loader.h"

#include "sim/config/Reader.h"

#include "ConfigTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessim::config {
namespace {

using test::expectAt;
using test::expectConfigError;
using test::TempDir;
using ::testing::HasSubstr;

/// Joins lines with '\n' so line numbers in the tests can be read off the list.
std::string yamlText(std::initializer_list<std::string> text) {
    std::string joined;
    for (const std::string& line : text) {
        joined += line + "\n";
    }
    return joined;
}

const Node& at(const Node& node, const std::string& key) {
    const Node* child = node.find(key);
    if (child == nullptr) {
        throw std::runtime_error("no key " + key);
    }
    return *child;
}

// ---------------------------------------------------------------------------------------------
// Parsing and locations

TEST(LoaderTest, BuildsATreeWithLocationsAndPaths) {
    const Node root = loadYamlString(yamlText({
                                         "name: npu",             // 1
                                         "dram:",                 // 2
                                         "  size: 2 GiB",         // 3
                                         "  timing: {tRCD: 14}",  // 4
                                         "banks: [1, 2, 3]",      // 5
                                         "layers:",               // 6
                                         "  - kind: conv",        // 7
                                         "    k: 3",              // 8
                                     }),
                                     "t.yaml");
    ASSERT_TRUE(root.isMap());
    EXPECT_EQ(root.path(), "");
    EXPECT_EQ(root.location().file, "t.yaml");
    ASSERT_EQ(root.entries().size(), 4u);
    EXPECT_EQ(root.entries()[0].first, "name");
    EXPECT_EQ(root.entries()[3].first, "layers");

    const Node& size = at(at(root, "dram"), "size");
    EXPECT_EQ(size.scalar(), "2 GiB");
    EXPECT_EQ(size.path(), "dram.size");
    EXPECT_EQ(size.location().line, 3);
    EXPECT_EQ(size.location().column, 9);
    EXPECT_EQ(size.keyLocation().line, 3);
    EXPECT_EQ(size.keyLocation().column, 3);

    const Node& tRCD = at(at(at(root, "dram"), "timing"), "tRCD");
    EXPECT_EQ(tRCD.path(), "dram.timing.tRCD");
    EXPECT_EQ(tRCD.location().line, 4);
    EXPECT_EQ(tRCD.location().column, 18);

    const Node& banks = at(root, "banks");
    ASSERT_TRUE(banks.isSequence());
    ASSERT_EQ(banks.items().size(), 3u);
    EXPECT_EQ(banks.items()[2].scalar(), "3");
    EXPECT_EQ(banks.items()[2].path(), "banks[2]");
    EXPECT_EQ(banks.items()[2].location().column, 15);

    const Node& kind = at(at(root, "layers").items()[0], "k");
    EXPECT_EQ(kind.path(), "layers[0].k");
    EXPECT_EQ(kind.location().line, 8);
    EXPECT_EQ(kind.location().column, 8);
}

TEST(LoaderTest, NullValuesAreLocatedAtTheirKey) {
    const Node root = loadYamlString(yamlText({
                                         "a:",       // 1
                                         "b: ~",     // 2
                                         "c: null",  // 3
                                         "d: 'null'",
                                     }),
                                     "n.yaml");
    EXPECT_TRUE(at(root, "a").isNull());
    EXPECT_EQ(at(root, "a").location().line, 1);
    EXPECT_EQ(at(root, "a").location().column, 1);
    EXPECT_TRUE(at(root, "b").isNull());
    EXPECT_EQ(at(root, "b").location().line, 2);
    EXPECT_EQ(at(root, "b").location().column, 4);
    EXPECT_TRUE(at(root, "c").isNull());
    ASSERT_TRUE(at(root, "d").isScalar());
    EXPECT_EQ(at(root, "d").scalar(), "null");
}

TEST(LoaderTest, EmptyDocumentIsNull) {
    EXPECT_TRUE(loadYamlString("", "e.yaml").isNull());
    EXPECT_TRUE(loadYamlString("# only a comment\n", "e.yaml").isNull());
    const Node empty = loadYamlString("", "e.yaml");
    Reader reader(empty);
    EXPECT_EQ(reader.get<int64_t>("x", 7), 7);
    reader.finish();
}

TEST(LoaderTest, SyntaxErrorHasTheYamlMarkOneBased) {
    const ConfigError unclosed =
        expectConfigError([] { loadYamlString(yamlText({"a: [1, 2"}), "bad.yaml"); });
    expectAt(unclosed, "bad.yaml", 2, 1, "");
    EXPECT_EQ(unclosed.detail(), "end of sequence flow not found");
    EXPECT_STREQ(unclosed.what(), "bad.yaml:2:1: error: end of sequence flow not found");

    // yaml-cpp stops at the ':' of "b: 3" (0-based 1:1).
    const ConfigError runOn = expectConfigError([] {
        loadYamlString(yamlText({"a: [1, 2", "b: 3"}), "bad.yaml");
    });
    expectAt(runOn, "bad.yaml", 2, 2, "");

    const ConfigError indented = expectConfigError([] {
        loadYamlString(yamlText({"a: 1", " b: 2"}), "bad.yaml");
    });
    expectAt(indented, "bad.yaml", 2, 3, "");
    EXPECT_EQ(indented.detail(), "illegal map value");

    const ConfigError tab = expectConfigError([] {
        loadYamlString(yamlText({"a: 1", "\tb: 2"}), "bad.yaml");
    });
    expectAt(tab, "bad.yaml", 2, 1, "");
    EXPECT_THAT(tab.detail(), HasSubstr("tab"));

    const ConfigError alias = expectConfigError([] {
        loadYamlString(yamlText({"x: 1", "a: *nope"}), "bad.yaml");
    });
    expectAt(alias, "bad.yaml", 2, 4, "");
}

TEST(LoaderTest, SyntaxErrorInAFileNamesThatFile) {
    TempDir dir;
    const std::string file = dir.write("broken.yaml", yamlText({"ok: 1", "key: value: other"}));
    const ConfigError error = expectConfigError([&] { loadYamlFile(file); });
    expectAt(error, file, 2, 11, "");
    EXPECT_EQ(error.detail(), "illegal map value");
}

TEST(LoaderTest, DuplicateKeysAreRejected) {
    const ConfigError error = expectConfigError([] {
        loadYamlString(yamlText({"dram:", "  size: 1 GiB", "  size: 2 GiB"}), "dup.yaml");
    });
    expectAt(error, "dup.yaml", 3, 3, "dram.size");
    EXPECT_EQ(error.detail(), "duplicate key 'size' (first given at line 2)");
}

TEST(LoaderTest, NonScalarKeysAndSeveralDocumentsAreRejected) {
    const ConfigError key = expectConfigError([] {
        loadYamlString(yamlText({"a:", "  ? [1, 2]", "  : x"}), "k.yaml");
    });
    expectAt(key, "k.yaml", 2, 5, "a");
    EXPECT_EQ(key.detail(), "map keys must be plain names");

    const ConfigError documents = expectConfigError([] {
        loadYamlString(yamlText({"a: 1", "---", "b: 2"}), "d.yaml");
    });
    expectAt(documents, "d.yaml", 3, 1, "");
    EXPECT_EQ(documents.detail(), "a configuration file must hold a single YAML document");
}

TEST(LoaderTest, MissingTopLevelFile) {
    TempDir dir;
    const std::string file = dir.path("nope.yaml");
    const ConfigError error = expectConfigError([&] { loadYamlFile(file); });
    expectAt(error, file, 0, 0, "");
    EXPECT_EQ(error.detail(), "cannot open configuration file: no such file");
    const ConfigError directory = expectConfigError([&] { loadYamlFile(dir.path("")); });
    EXPECT_THAT(directory.detail(), HasSubstr("directory"));
}

// ---------------------------------------------------------------------------------------------
// Includes

TEST(LoaderTest, IncludeMergesDeeplyAndTheIncludingFileWins) {
    TempDir dir;
    dir.write("base.yaml", yamlText({
                               "dram:",               // 1
                               "  size: 1 GiB",       // 2
                               "  frequency: 1 GHz",  // 3
                               "  banks: [1, 2, 3]",  // 4
                               "cores: 4",            // 5
                               "name: base",          // 6
                           }));
    const std::string top = dir.write("top.yaml", yamlText({
                                                      "include: base.yaml",  // 1
                                                      "dram:",               // 2
                                                      "  frequency: 2 GHz",  // 3
                                                      "  banks: [7]",        // 4
                                                      "name: top",           // 5
                                                      "extra: true",         // 6
                                                  }));
    const Node root = loadYamlFile(top);
    EXPECT_EQ(root.find("include"), nullptr);
    const Node& dram = at(root, "dram");
    EXPECT_EQ(at(dram, "size").scalar(), "1 GiB");
    EXPECT_EQ(at(dram, "size").location().file, dir.path("base.yaml"));
    EXPECT_EQ(at(dram, "size").location().line, 2);
    EXPECT_EQ(at(dram, "frequency").scalar(), "2 GHz");
    EXPECT_EQ(at(dram, "frequency").location().file, top);
    EXPECT_EQ(at(dram, "frequency").location().line, 3);
    // Lists are replaced, not concatenated.
    ASSERT_EQ(at(dram, "banks").items().size(), 1u);
    EXPECT_EQ(at(dram, "banks").items()[0].scalar(), "7");
    EXPECT_EQ(at(root, "cores").scalar(), "4");
    EXPECT_EQ(at(root, "name").scalar(), "top");
    EXPECT_EQ(at(root, "extra").scalar(), "true");
    // Included keys keep their place; new keys come after them.
    ASSERT_EQ(root.entries().size(), 4u);
    EXPECT_EQ(root.entries()[0].first, "dram");
    EXPECT_EQ(root.entries()[1].first, "cores");
    EXPECT_EQ(root.entries()[2].first, "name");
    EXPECT_EQ(root.entries()[3].first, "extra");
    EXPECT_EQ(at(dram, "size").path(), "dram.size");
}

TEST(LoaderTest, IncludeListAppliesInOrderLaterWins) {
    TempDir dir;
    dir.write("a.yaml", yamlText({"x: from-a", "y: from-a", "m: {p: 1, q: 1}"}));
    dir.write("b.yaml", yamlText({"y: from-b", "m: {q: 2, r: 2}"}));
    const std::string top = dir.write("top.yaml", yamlText({"include: [a.yaml, b.yaml]", "m: {r: 3}"}));
    const Node root = loadYamlFile(top);
    EXPECT_EQ(at(root, "x").scalar(), "from-a");
    EXPECT_EQ(at(root, "y").scalar(), "from-b");
    const Node& m = at(root, "m");
    EXPECT_EQ(at(m, "p").scalar(), "1");
    EXPECT_EQ(at(m, "q").scalar(), "2");
    EXPECT_EQ(at(m, "r").scalar(), "3");
}

TEST(LoaderTest, IncludePathsAreRelativeToTheIncludingFile) {
    TempDir dir;
    dir.write("shared/memory.yaml", yamlText({"include: ../common/units.yaml", "size: 2 MiB"}));
    dir.write("common/units.yaml", yamlText({"line: 64 B", "size: 1 MiB"}));
    dir.write("targets/sub/npu.yaml", yamlText({"include:", "  - ../../shared/memory.yaml", "name: npu"}));
    const Node root = loadYamlFile(dir.path("targets/sub/npu.yaml"));
    EXPECT_EQ(at(root, "line").scalar(), "64 B");
    EXPECT_EQ(at(root, "line").location().file, dir.path("common/units.yaml"));
    EXPECT_EQ(at(root, "size").scalar(), "2 MiB");
    EXPECT_EQ(at(root, "size").location().file, dir.path("shared/memory.yaml"));
    EXPECT_EQ(at(root, "name").scalar(), "npu");
}

TEST(LoaderTest, IncludeFromAStringIsRelativeToThePseudoFile) {
    TempDir dir;
    dir.write("conf/base.yaml", yamlText({"a: 1"}));
    const Node root = loadYamlString(yamlText({"include: base.yaml", "b: 2"}), dir.path("conf/x.yaml"));
    EXPECT_EQ(at(root, "a").scalar(), "1");
    EXPECT_EQ(at(root, "b").scalar(), "2");
}

TEST(LoaderTest, IncludedValueCanBeReplacedByAnotherKind) {
    TempDir dir;
    dir.write("base.yaml", yamlText({"policy: {name: lru, ways: 4}", "list: [1, 2]"}));
    const std::string top =
        dir.write("top.yaml", yamlText({"include: base.yaml", "policy: fifo", "list: ~"}));
    const Node root = loadYamlFile(top);
    EXPECT_EQ(at(root, "policy").scalar(), "fifo");
    EXPECT_TRUE(at(root, "list").isNull());
}

TEST(LoaderTest, DiamondIncludesAreNotCycles) {
    TempDir dir;
    dir.write("d.yaml", yamlText({"d: 1"}));
    dir.write("b.yaml", yamlText({"include: d.yaml", "b: 1"}));
    dir.write("c.yaml", yamlText({"include: d.yaml", "c: 1"}));
    const Node root = loadYamlFile(dir.write("a.yaml", yamlText({"include: [b.yaml, c.yaml]"})));
    EXPECT_EQ(at(root, "d").scalar(), "1");
    EXPECT_EQ(at(root, "b").scalar(), "1");
    EXPECT_EQ(at(root, "c").scalar(), "1");
}

TEST(LoaderTest, IncludeCycleIsReportedAtTheIncludeLine) {
    TempDir dir;
    const std::string a = dir.write("a.yaml", yamlText({"x: 1", "include: b.yaml"}));
    const std::string b = dir.write("b.yaml", yamlText({"y: 2", "include:", "  - other.yaml", "  - a.yaml"}));
    dir.write("other.yaml", yamlText({"z: 3"}));
    const ConfigError error = expectConfigError([&] { loadYamlFile(a); });
    expectAt(error, b, 4, 5, "include");
    EXPECT_EQ(error.detail(), "include cycle: " + a + " -> " + b + " -> " + a);
}

TEST(LoaderTest, SelfIncludeIsACycle) {
    TempDir dir;
    const std::string self = dir.write("self.yaml", yamlText({"a: 1", "include: ./self.yaml"}));
    const ConfigError error = expectConfigError([&] { loadYamlFile(self); });
    expectAt(error, self, 2, 10, "include");
    EXPECT_THAT(error.detail(), HasSubstr("include cycle"));
}

TEST(LoaderTest, MissingIncludeIsReportedAtTheIncludeLine) {
    TempDir dir;
    const std::string top =
        dir.write("top.yaml", yamlText({"a: 1", "include:", "  - there.yaml", "  - missing.yaml"}));
    dir.write("there.yaml", "b: 2\n");
    const ConfigError error = expectConfigError([&] { loadYamlFile(top); });
    expectAt(error, top, 4, 5, "include");
    EXPECT_EQ(error.detail(), "cannot open included file 'missing.yaml' (looked for '" +
                                  dir.path("missing.yaml") + "'): no such file");
}

TEST(LoaderTest, ErrorsInsideAnIncludedFileNameThatFile) {
    TempDir dir;
    const std::string inner = dir.write("inner.yaml", yamlText({"a: 1", "b: [2"}));
    const std::string top = dir.write("top.yaml", yamlText({"include: inner.yaml"}));
    const ConfigError error = expectConfigError([&] { loadYamlFile(top); });
    EXPECT_EQ(error.location().file, inner);
    EXPECT_EQ(error.location().line, 3);
}

TEST(LoaderTest, IncludeMustNameFilesAndTheyMustHoldMaps) {
    TempDir dir;
    const std::string bad = dir.write("bad.yaml", yamlText({"include: {a: 1}"}));
    const ConfigError map = expectConfigError([&] { loadYamlFile(bad); });
    expectAt(map, bad, 1, 10, "include");
    EXPECT_EQ(map.detail(), "expected a file name or a list of file names, got a map");

    const std::string nested = dir.write("nested.yaml", yamlText({"include: [[a.yaml]]"}));
    const ConfigError item = expectConfigError([&] { loadYamlFile(nested); });
    expectAt(item, nested, 1, 11, "include");

    dir.write("list.yaml", yamlText({"- 1", "- 2"}));
    const std::string top = dir.write("top.yaml", yamlText({"include: list.yaml"}));
    const ConfigError list = expectConfigError([&] { loadYamlFile(top); });
    expectAt(list, top, 1, 10, "include");
    EXPECT_EQ(list.detail(), "included file 'list.yaml' must hold a map, got a list");
}

TEST(LoaderTest, IncludedValuesAreReadWithTheirOwnLocations) {
    TempDir dir;
    const std::string base = dir.write("base.yaml", yamlText({"dram:", "  size: 512"}));
    const std::string top =
        dir.write("top.yaml", yamlText({"include: base.yaml", "dram:", "  frequency: 1 GHz"}));
    const Node root = loadYamlFile(top);
    Reader dram = Reader(root).child("dram");
    const ConfigError error = expectConfigError([&] { dram.get<Bytes>("size"); });
    expectAt(error, base, 2, 9, "dram.size");
    EXPECT_EQ(error.detail(), "expected a size with a unit, like 512 KiB");
}

// ---------------------------------------------------------------------------------------------
// --set overrides

TEST(LoaderTest, OverrideReplacesAnExistingValue) {
    Node root = loadYamlString(yamlText({"dram:", "  size: 1 GiB", "  banks: 8"}), "o.yaml");
    applyOverride(root, "dram.size", "4 GiB", commandLineLocation(3));
    const Node& size = at(at(root, "dram"), "size");
    EXPECT_EQ(size.scalar(), "4 GiB");
    EXPECT_EQ(size.path(), "dram.size");
    EXPECT_EQ(size.location().file, "<command line>");
    EXPECT_EQ(size.location().column, 3);
    // Replacing keeps the key's position.
    EXPECT_EQ(at(root, "dram").entries()[0].first, "size");
    EXPECT_EQ(at(at(root, "dram"), "banks").scalar(), "8");
}

TEST(LoaderTest, OverrideCreatesMissingLevels) {
    Node root = loadYamlString("a: 1\n", "o.yaml");
    applyOverride(root, "cache.l2.ways", "16", commandLineLocation(2));
    const Node& ways = at(at(at(root, "cache"), "l2"), "ways");
    EXPECT_EQ(ways.scalar(), "16");
    EXPECT_EQ(ways.path(), "cache.l2.ways");
    EXPECT_EQ(at(root, "cache").path(), "cache");
    EXPECT_EQ(at(root, "cache").location().file, "<command line>");

    Node empty = loadYamlString("", "o.yaml");
    applyOverride(empty, "x.y", "z", commandLineLocation(1));
    EXPECT_EQ(at(at(empty, "x"), "y").scalar(), "z");

    Node nulls = loadYamlString("x:\n", "o.yaml");
    applyOverride(nulls, "x.y", "z", commandLineLocation(1));
    EXPECT_EQ(at(at(nulls, "x"), "y").scalar(), "z");
}

TEST(LoaderTest, OverrideValueIsYaml) {
    Node root = loadYamlString("a: 1\n", "o.yaml");
    applyOverride(root, "list", "[1, 2]", commandLineLocation(1));
    applyOverride(root, "map", "{p: 1, q: two}", commandLineLocation(2));
    applyOverride(root, "text", "hello world", commandLineLocation(3));
    applyOverride(root, "nothing", "", commandLineLocation(4));
    ASSERT_TRUE(at(root, "list").isSequence());
    EXPECT_EQ(at(root, "list").items()[1].scalar(), "2");
    EXPECT_EQ(at(root, "list").items()[1].path(), "list[1]");
    EXPECT_EQ(at(root, "list").items()[1].location().column, 1);
    EXPECT_EQ(at(at(root, "map"), "q").scalar(), "two");
    EXPECT_EQ(at(at(root, "map"), "q").path(), "map.q");
    EXPECT_EQ(at(root, "text").scalar(), "hello world");
    EXPECT_TRUE(at(root, "nothing").isNull());

    Reader reader(root);
    EXPECT_EQ(reader.get<std::vector<int64_t>>("list"), (std::vector<int64_t>{1, 2}));
}

TEST(LoaderTest, OverrideAMapWithAScalarAndIntoListItems) {
    Node root =
        loadYamlString(yamlText({"policy: {name: lru}", "layers:", "  - name: a", "  - name: b"}), "o.yaml");
    applyOverride(root, "policy", "fifo", commandLineLocation(1));
    EXPECT_EQ(at(root, "policy").scalar(), "fifo");
    applyOverride(root, "layers[1].name", "c", commandLineLocation(2));
    EXPECT_EQ(at(at(root, "layers").items()[1], "name").scalar(), "c");
    EXPECT_EQ(at(at(root, "layers").items()[1], "name").path(), "layers[1].name");
    applyOverride(root, "layers[0]", "{name: z, k: 3}", commandLineLocation(3));
    EXPECT_EQ(at(at(root, "layers").items()[0], "k").path(), "layers[0].k");
}

TEST(LoaderTest, OverrideErrorsAreAtTheCommandLine) {
    Node root = loadYamlString(yamlText({"a:", "  b: 1", "list: [1]"}), "o.yaml");
    const ConfigError through =
        expectConfigError([&] { applyOverride(root, "a.b.c", "2", commandLineLocation(4)); });
    expectAt(through, "<command line>", 1, 4, "a.b.c");
    EXPECT_EQ(through.detail(), "cannot set 'a.b.c': 'a.b' is a value, not a map");
    EXPECT_STREQ(through.what(),
                 "<command line>:1:4: error: a.b.c: cannot set 'a.b.c': 'a.b' is a value, not a map");

    const ConfigError badKey =
        expectConfigError([&] { applyOverride(root, "a..b", "2", commandLineLocation(2)); });
    expectAt(badKey, "<command line>", 1, 2, "a..b");
    EXPECT_THAT(badKey.detail(), HasSubstr("invalid key"));
    for (const std::string key : {"", ".a", "a.", "a[", "a[x]", "a]"}) {
        SCOPED_TRACE(key);
        expectConfigError([&] { applyOverride(root, key, "2", commandLineLocation(2)); });
    }

    const ConfigError badValue =
        expectConfigError([&] { applyOverride(root, "a.b", "[1,", commandLineLocation(5)); });
    expectAt(badValue, "<command line>", 1, 5, "a.b");
    EXPECT_THAT(badValue.detail(), HasSubstr("cannot parse value '[1,'"));

    const ConfigError past =
        expectConfigError([&] { applyOverride(root, "list[3]", "2", commandLineLocation(6)); });
    EXPECT_EQ(past.detail(), "cannot set 'list[3]': index 3 is past the end of 'list', which has 1 items");
    const ConfigError notList =
        expectConfigError([&] { applyOverride(root, "a[0]", "2", commandLineLocation(6)); });
    EXPECT_EQ(notList.detail(), "cannot set 'a[0]': 'a' is a map, not a list");
    const ConfigError noList =
        expectConfigError([&] { applyOverride(root, "zz[0]", "2", commandLineLocation(6)); });
    EXPECT_EQ(noList.detail(), "cannot set 'zz[0]': there is no list 'zz'");
}

TEST(LoaderTest, OverrideAssignmentSplitsAtTheFirstEquals) {
    Node root = loadYamlString("a: 1\n", "o.yaml");
    applyOverride(root, "expr=x=y", commandLineLocation(1));
    EXPECT_EQ(at(root, "expr").scalar(), "x=y");
    const ConfigError error =
        expectConfigError([&] { applyOverride(root, "novalue", commandLineLocation(7)); });
    expectAt(error, "<command line>", 1, 7, "");
    EXPECT_EQ(error.detail(), "expected key=value, like dram.size=2GiB, got 'novalue'");
}

TEST(LoaderTest, EndToEndFileIncludeOverrideAndReader) {
    TempDir dir;
    dir.write("common/dram.yaml", yamlText({"dram:", "  size: 1 GiB", "  frequency: 1600 MHz",
                                            "  timing:", "    tRCD: 14 ns", "    tRP: 14 ns"}));
    const std::string top = dir.write(
        "targets/npu.yaml",
        yamlText({"include: ../common/dram.yaml", "name: npu", "dram:", "  timing:", "    tRP: 15 ns"}));
    Node root = loadYamlFile(top);
    applyOverride(root, "dram.size", "2GiB", commandLineLocation(2));
    applyOverride(root, "sim.seed", "42", commandLineLocation(3));

    Reader reader(root);
    EXPECT_EQ(reader.get<std::string>("name"), "npu");
    Reader dram = reader.child("dram");
    EXPECT_EQ(dram.get<Bytes>("size").value, 2ull << 30);
    EXPECT_EQ(dram.get<Frequency>("frequency").hz, 1.6e9);
    Reader timing = dram.child("timing");
    EXPECT_EQ(timing.get<Duration>("tRCD").seconds, 14e-9);
    EXPECT_EQ(timing.get<Duration>("tRP").seconds, 15e-9);
    EXPECT_EQ(reader.child("sim").get<uint64_t>("seed"), 42u);
    reader.finish();
}

}  // namespace
}  // namespace tessim::config
