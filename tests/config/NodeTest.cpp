#include "sim/config/Node.h"

#include "ConfigTestUtil.h"

#include <gtest/gtest.h>

namespace tessim::config {
namespace {

using test::expectConfigError;

Location at(int line, int column) {
    return Location{"n.yaml", line, column};
}

TEST(NodeTest, DefaultIsNull) {
    const Node node;
    EXPECT_EQ(node.kind(), Node::Kind::Null);
    EXPECT_TRUE(node.isNull());
    EXPECT_TRUE(node.entries().empty());
    EXPECT_TRUE(node.items().empty());
    EXPECT_EQ(node.find("x"), nullptr);
    EXPECT_EQ(node.kindName(), "nothing");
}

TEST(NodeTest, SetInsertsInOrderAndReplacesInPlace) {
    Node root = Node::makeMap(at(1, 1));
    root.set("b", Node::makeScalar("1", at(1, 4)));
    root.set("a", Node::makeScalar("2", at(2, 4)));
    root.set("b", Node::makeScalar("3", at(3, 4)));
    ASSERT_EQ(root.entries().size(), 2u);
    EXPECT_EQ(root.entries()[0].first, "b");
    EXPECT_EQ(root.entries()[0].second.scalar(), "3");
    EXPECT_EQ(root.entries()[0].second.location().line, 3);
    EXPECT_EQ(root.entries()[1].first, "a");
    ASSERT_NE(root.find("a"), nullptr);
    EXPECT_EQ(root.find("a")->scalar(), "2");
    EXPECT_EQ(root.find("missing"), nullptr);
}

TEST(NodeTest, PathsFollowThePositionInTheTree) {
    Node leaf = Node::makeScalar("5", at(3, 9));
    Node inner = Node::makeMap(at(3, 3));
    inner.set("tRCD", leaf);
    Node list = Node::makeSequence(at(4, 3));
    list.append(Node::makeScalar("x", at(4, 4)));
    list.append(inner);
    Node root = Node::makeMap(at(1, 1));
    root.set("dram", list);
    const Node* dram = root.find("dram");
    ASSERT_NE(dram, nullptr);
    EXPECT_EQ(dram->path(), "dram");
    EXPECT_EQ(dram->items()[0].path(), "dram[0]");
    EXPECT_EQ(dram->items()[1].path(), "dram[1]");
    EXPECT_EQ(dram->items()[1].find("tRCD")->path(), "dram[1].tRCD");
    EXPECT_EQ(root.path(), "");
}

TEST(NodeTest, FindMutableEraseAndItemMutable) {
    Node root = Node::makeMap(at(1, 1));
    root.set("a", Node::makeScalar("1", at(1, 4)));
    Node list = Node::makeSequence(at(2, 7));
    list.append(Node::makeScalar("x", at(2, 8)));
    root.set("list", list);

    root.findMutable("a")->setLocation(at(7, 7));
    EXPECT_EQ(root.find("a")->location().line, 7);
    Node* item = root.findMutable("list")->itemMutable(0);
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(item->scalar(), "x");
    EXPECT_EQ(root.findMutable("list")->itemMutable(1), nullptr);
    EXPECT_EQ(root.findMutable("a")->itemMutable(0), nullptr);

    EXPECT_TRUE(root.erase("a"));
    EXPECT_FALSE(root.erase("a"));
    EXPECT_EQ(root.find("a"), nullptr);
    EXPECT_EQ(root.findMutable("a"), nullptr);
}

TEST(NodeTest, SetAndAppendTurnNullIntoContainersButNothingElse) {
    Node map;
    map.set("k", Node::makeScalar("v", at(1, 4)));
    EXPECT_TRUE(map.isMap());
    Node list;
    list.append(Node::makeScalar("v", at(1, 3)));
    EXPECT_TRUE(list.isSequence());

    const ConfigError onList = expectConfigError([&] { list.set("k", Node()); });
    EXPECT_EQ(onList.detail(), "cannot set key 'k': expected a map, got a list");
    const ConfigError onMap = expectConfigError([&] { map.append(Node()); });
    EXPECT_EQ(onMap.detail(), "cannot append: expected a list, got a map");
}

TEST(NodeTest, KindMismatchesAreConfigErrors) {
    Node root = Node::makeMap(at(1, 1));
    root.set("a", Node::makeScalar("1", at(2, 4)));
    const ConfigError error = expectConfigError([&] { (void)root.scalar(); });
    EXPECT_EQ(error.detail(), "expected a value, got a map");
    const ConfigError items = expectConfigError([&] { (void)root.items(); });
    EXPECT_EQ(items.detail(), "expected a list, got a map");
    const ConfigError entries = expectConfigError([&] { (void)root.find("a")->entries(); });
    EXPECT_EQ(entries.detail(), "expected a map, got a value");
    EXPECT_EQ(entries.key(), "a");
    EXPECT_EQ(entries.location().line, 2);
}

TEST(NodeTest, KeyLocationDefaultsToTheValueLocation) {
    Node value = Node::makeScalar("1", at(2, 8));
    EXPECT_EQ(value.keyLocation().column, 8);
    value.setKeyLocation(at(2, 3));
    EXPECT_EQ(value.keyLocation().column, 3);
    EXPECT_EQ(value.location().column, 8);
}

TEST(NodeTest, JoinAndIndexPaths) {
    EXPECT_EQ(joinPath("", "dram"), "dram");
    EXPECT_EQ(joinPath("dram", "size"), "dram.size");
    EXPECT_EQ(indexPath("layers", 2), "layers[2]");
    EXPECT_EQ(joinPath(indexPath("layers", 2), "name"), "layers[2].name");
}

// A map of many keys is indexed: lookups after appends, replacements and erasures still find
// exactly what the entries hold, in file order.
TEST(NodeTest, ALargeMapFindsEveryKeyAfterAppendsReplacementsAndErasures) {
    Node map = Node::makeMap(at(1, 1));
    for (int i = 0; i < 100; ++i)
        map.set("k" + std::to_string(i), Node::makeScalar(std::to_string(i), at(i + 1, 1)));
    map.appendNew("extra", Node::makeScalar("x", at(200, 1)));
    ASSERT_EQ(map.entries().size(), 101u);
    for (int i = 0; i < 100; ++i)
        ASSERT_EQ(map.find("k" + std::to_string(i))->scalar(), std::to_string(i));
    EXPECT_EQ(map.find("extra")->scalar(), "x");
    EXPECT_EQ(map.find("k100"), nullptr);
    map.set("k50", Node::makeScalar("fifty", at(300, 1)));  // replaced in place
    EXPECT_EQ(map.entries()[50].first, "k50");
    EXPECT_EQ(map.find("k50")->scalar(), "fifty");
    EXPECT_TRUE(map.erase("k10"));
    EXPECT_EQ(map.find("k10"), nullptr);
    EXPECT_EQ(map.find("k11")->scalar(), "11");  // after the erased one, positions moved
    map.set("k10", Node::makeScalar("again", at(400, 1)));
    EXPECT_EQ(map.find("k10")->scalar(), "again");
    EXPECT_EQ(map.entries().back().first, "k10");
    const Node copy = map;
    EXPECT_EQ(copy.find("k99")->scalar(), "99");
    EXPECT_EQ(copy.find("extra")->scalar(), "x");
}

}  // namespace
}  // namespace tessim::config
