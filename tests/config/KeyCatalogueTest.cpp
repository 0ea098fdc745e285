// KeyCatalogue: what the readers ask of a map that names its schema, merged over every map read
// under that name; nothing is collected without one.
#include "sim/config/KeyCatalogue.h"

#include "sim/config/Loader.h"
#include "sim/config/Reader.h"

#include <gtest/gtest.h>

namespace tessim::config {
namespace {

const KeyCatalogue::Key* find(const KeyCatalogue::Schema& s, const std::string& name) {
    for (const auto& k : s.keys)
        if (k.name == name)
            return &k;
    return nullptr;
}

void readCache(const Node& root) {
    Reader r(root);
    r.describeAs("cache");
    r.get<Bytes>("size");
    r.get<unsigned>("ways", 8u, Range<unsigned>{1, 64});
    r.oneOf("policy", {"lru", "random"}, std::string("lru"));
    if (r.has("next"))
        r.get<std::string>("next");
    Reader ops = r.child("ops");
    ops.describeKeysAs("<op>", {"default"});
    for (const auto& [name, node] : ops.self().entries())
        ops.child(name).get<double>("latency", 1.0);
    r.finish();
}

TEST(KeyCatalogue, ListsEachKeyWithTypeDefaultAndBoundsMergedOverMaps) {
    const Node a = loadYamlString("size: 1 KiB\nnext: l2\nops: {fma: {latency: 4}, default: {}}\n", "a.yaml");
    const Node b = loadYamlString("size: 2 KiB\nways: 4\nops: {add: {}}\n", "b.yaml");
    KeyCatalogue catalogue;
    readCache(a);
    readCache(b);
    const auto schemas = catalogue.schemas();
    ASSERT_EQ(schemas.size(), 1u);
    const auto& s = schemas.front();
    EXPECT_EQ(s.name, "cache");
    ASSERT_NE(find(s, "size"), nullptr);
    EXPECT_TRUE(find(s, "size")->required);
    EXPECT_EQ(find(s, "size")->type, "size (B, KiB, MiB, GiB)");
    ASSERT_NE(find(s, "ways"), nullptr);
    EXPECT_FALSE(find(s, "ways")->required);
    EXPECT_EQ(find(s, "ways")->fallback, "8");
    EXPECT_EQ(find(s, "ways")->bounds, "1 to 64");
    EXPECT_EQ(find(s, "policy")->bounds, "one of 'lru', 'random'");
    // Read only after has(): optional, with no default.
    ASSERT_NE(find(s, "next"), nullptr);
    EXPECT_FALSE(find(s, "next")->required);
    EXPECT_EQ(find(s, "next")->fallback, "");
    // Named entries show as their placeholder, but for the fixed ones.
    EXPECT_NE(find(s, "ops.<op>.latency"), nullptr);
    EXPECT_NE(find(s, "ops.default.latency"), nullptr);
    EXPECT_EQ(find(s, "ops.fma.latency"), nullptr);
    EXPECT_EQ(s.keys.front().name, "size");  // in the order first read
}

TEST(KeyCatalogue, ADefaultThatFollowsOtherKeysIsSaidSo) {
    const Node a = loadYamlString("x: 1\n", "a.yaml");
    KeyCatalogue catalogue;
    for (int fallback : {3, 5}) {
        Reader r(a);
        r.describeAs("s");
        r.get<int>("x");
        r.get<int>("y", fallback);
    }
    const auto schemas = catalogue.schemas();
    ASSERT_EQ(schemas.size(), 1u);
    EXPECT_TRUE(find(schemas.front(), "y")->fallbackVaries);
    EXPECT_FALSE(find(schemas.front(), "x")->fallbackVaries);
}

TEST(KeyCatalogue, CollectsNothingWithoutOneAndOnlyOneAtATime) {
    const Node a = loadYamlString("size: 1 KiB\nops: {}\n", "a.yaml");
    readCache(a);  // no catalogue: nothing to collect, nothing kept
    KeyCatalogue catalogue;
    EXPECT_TRUE(catalogue.schemas().empty());
    EXPECT_THROW(KeyCatalogue second, std::logic_error);
    Reader undescribed(a);
    undescribed.get<Bytes>("size");
    EXPECT_TRUE(catalogue.schemas().empty());
}

}  // namespace
}  // namespace tessim::config
