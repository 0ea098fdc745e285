#include "sim/config/ConfigError.h"

#include <gtest/gtest.h>

namespace tessim::config {
namespace {

TEST(ConfigErrorTest, WhatNamesFileLineColumnAndKey) {
    const ConfigError error(Location{"targets/npu.yaml", 12, 5}, "dram.size", "bad size");
    EXPECT_STREQ(error.what(), "targets/npu.yaml:12:5: error: dram.size: bad size");
    EXPECT_EQ(error.location().file, "targets/npu.yaml");
    EXPECT_EQ(error.location().line, 12);
    EXPECT_EQ(error.location().column, 5);
    EXPECT_EQ(error.key(), "dram.size");
    EXPECT_EQ(error.detail(), "bad size");
}

TEST(ConfigErrorTest, KeyPartIsOmittedWhenEmpty) {
    const ConfigError error(Location{"a.yaml", 2, 1}, "", "illegal map value");
    EXPECT_STREQ(error.what(), "a.yaml:2:1: error: illegal map value");
}

TEST(ConfigErrorTest, UnknownPositionKeepsTheFile) {
    EXPECT_STREQ(ConfigError(Location{"a.yaml", 0, 0}, "", "cannot open").what(),
                 "a.yaml: error: cannot open");
    EXPECT_STREQ(ConfigError(Location{}, "k", "m").what(), "<unknown>: error: k: m");
}

TEST(ConfigErrorTest, IsARuntimeError) {
    try {
        throw ConfigError(Location{"x.yaml", 1, 1}, "a", "b");
    } catch (const std::runtime_error& error) {
        EXPECT_STREQ(error.what(), "x.yaml:1:1: error: a: b");
    }
}

TEST(ConfigErrorTest, LocationToString) {
    EXPECT_EQ(toString(Location{"f.yaml", 3, 7}), "f.yaml:3:7");
    EXPECT_EQ(toString(Location{"<command line>", 1, 2}), "<command line>:1:2");
    EXPECT_EQ(toString(Location{"f.yaml", 0, 0}), "f.yaml");
    EXPECT_EQ(toString(Location{"s.jsonl", 4, 0}), "s.jsonl:4");  // a whole line
}

}  // namespace
}  // namespace tessim::config
