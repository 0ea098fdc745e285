// YAML that would expand or loop without bound: an alias inside its own anchor (found by the
// loader's fuzzer: a stack overflow), an alias bomb of a few hundred bytes, a stray flow
// collection, very deep nesting. Each is a ConfigError naming the file and line, never a crash,
// hang or runaway memory.
#include <gtest/gtest.h>

#include <string>

#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"

namespace {

std::string loadError(const std::string& text) {
    try {
        tessim::config::loadYamlString(text, "bad.yaml");
    } catch (const tessim::config::ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(YamlLimits, AnAliasInsideItsOwnAnchorIsAnError) {
    const std::string e = loadError("a: &x [1, 2, *x]\n");
    EXPECT_NE(e.find("bad.yaml:1:"), std::string::npos) << e;
    EXPECT_NE(e.find("alias inside its own anchor"), std::string::npos) << e;
}

TEST(YamlLimits, AnAliasBombIsRefusedBeforeItGrows) {
    // Nine levels of ten aliases each: 10^9 values once expanded, from about 400 bytes.
    std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i <= 9; ++i) {
        const std::string prev = "*l" + std::to_string(i - 1);
        text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k)
            text += (k ? ", " : "") + prev;
        text += "]\n";
    }
    const std::string e = loadError(text);
    EXPECT_NE(e.find("bad.yaml:"), std::string::npos) << e;
    EXPECT_NE(e.find("more than 1000000 values"), std::string::npos) << e;
}

TEST(YamlLimits, AStrayFlowCollectionEndsInsteadOfLoopingOverEmptyDocuments) {
    // Found by the loader's fuzzer: yaml-cpp's LoadAll collected empty documents without end.
    const std::string e = loadError(" {,:5, 5}\n, 5}\n");
    EXPECT_NE(e.find("bad.yaml:2:"), std::string::npos) << e;
    EXPECT_NE(e.find("single YAML document"), std::string::npos) << e;
}

TEST(YamlLimits, NonUtf8AndBinaryBytesAreNamedByLineAndColumn) {
    std::string e = loadError("name: ok\nother: n\xff\xfeo\n");
    EXPECT_NE(e.find("bad.yaml:2:9: error: byte 0xff is not UTF-8 text"), std::string::npos) << e;
    e = loadError(std::string("\x7f"
                              "ELF\x02\x01",
                              6));
    EXPECT_NE(e.find("bad.yaml:1:5: error: byte 0x02 is not UTF-8 text"), std::string::npos) << e;
    // A truncated multi-byte sequence at the end of the file.
    e = loadError("name: caf\xc3");
    EXPECT_NE(e.find("bad.yaml:1:10:"), std::string::npos) << e;
    // Well-formed UTF-8 is text.
    EXPECT_EQ(loadError("name: caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82\n"), "");
}

TEST(YamlLimits, DevicesAreNotReadAsFiles) {
    try {
        tessim::config::loadYamlFile("/dev/zero");
        FAIL() << "/dev/zero was read";
    } catch (const tessim::config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
}

TEST(YamlLimits, DeepNestingIsAnErrorWithItsLine) {
    std::string text = "a: ";
    for (int i = 0; i < 300; ++i)
        text += "[";
    for (int i = 0; i < 300; ++i)
        text += "]";
    text += "\n";
    const std::string e = loadError(text);
    EXPECT_NE(e.find("bad.yaml:1:"), std::string::npos) << e;
    EXPECT_NE(e.find("nested more than 256 levels"), std::string::npos) << e;
    // Within the limit, nesting is fine.
    EXPECT_EQ(loadError("a: [[[[[1]]]]]\n"), "");
}

}  // namespace
