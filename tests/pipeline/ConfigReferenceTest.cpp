// The configuration reference (docs/config-reference.md) is written from the target readers as
// they build every shipped target: the page is the generated one, and every component model a
// shipped target uses has its section.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "run/pipeline/ConfigLibrary.h"
#include "run/pipeline/ConfigReference.h"
#include "sim/config/Loader.h"

namespace tessim {
namespace {

TEST(ConfigReference, TheDocsPageIsTheGeneratedOne) {
    std::ifstream in(std::string(TESSIM_SOURCE_DIR) + "/docs/config-reference.md");
    ASSERT_TRUE(in) << "docs/config-reference.md is missing";
    std::stringstream page;
    page << in.rdbuf();
    EXPECT_EQ(page.str(), configReferenceMarkdown())
        << "docs/config-reference.md is stale: regenerate it with build/tessim list config --reference > "
           "docs/config-reference.md";
}

TEST(ConfigReference, EveryComponentModelOfAShippedTargetHasItsSection) {
    std::set<std::string> sections;
    for (const auto& schema : configSchemas())
        sections.insert(schema.name);
    std::set<std::string> used;
    for (const LibraryEntry& entry : listLibrary(LibraryKind::Target)) {
        const config::Node root = config::loadYamlFile(entry.path);
        for (const auto& [key, node] : root.entries()) {
            const config::Node* impl = node.isMap() ? node.find("impl") : nullptr;
            if (impl == nullptr || !impl->isScalar() || impl->scalar() == "cluster")
                continue;
            used.insert(impl->scalar());
        }
    }
    ASSERT_GE(used.size(), 5u);
    for (const std::string& impl : used) {
        bool found = false;
        for (const std::string& s : sections)
            found = found || s.rfind("impl: " + impl + " ", 0) == 0;
        EXPECT_TRUE(found) << "no section for impl: " << impl;
    }
    EXPECT_TRUE(sections.count("target (top level)"));
    EXPECT_TRUE(sections.count("impl: table (unit of an engine)"));
}

TEST(ConfigReference, KeysCarryTheirUnitsDefaultsAndBounds) {
    const std::string page = configReferenceMarkdown();
    // A few rows a user relies on, as the readers define them.
    EXPECT_NE(page.find("| `ways` | integer ≥ 0 | required | 1 to 64 |"), std::string::npos);
    EXPECT_NE(page.find("| `line` | size (B, KiB, MiB, GiB) | `64 B` | 4 B to 4 KiB |"), std::string::npos);
    EXPECT_NE(page.find("| `quantum` | time (s, ms, us, ns, ps) | `1 us` | 1 ps to 1 s |"),
              std::string::npos);
    EXPECT_NE(page.find("| `ops.<op>.latency` |"), std::string::npos);
    EXPECT_NE(page.find("one of 'gshare', 'bimodal', 'none'"), std::string::npos);
}

}  // namespace
}  // namespace tessim
