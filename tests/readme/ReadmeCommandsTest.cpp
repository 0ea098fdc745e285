// Every tessim command that README.md and the pages under docs/ show runs and exits 0, from a
// scratch copy of the source tree (links to it) with build/ and ../shared/ where the pages expect
// them. One test per code block (its commands in order, in one scratch folder), so ctest runs the
// blocks in parallel, times each on its own and names the one that fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "tests/readme/ReadmeCommands.h"

namespace tessim::readme {
namespace {

namespace fs = std::filesystem;

// A block's commands may run this long in all: within ctest's 1200 s, so a block that runs out is
// still failed here, with its command named; six times the slowest block (`tessim bench`, 154 s
// on two quiet cores under the sanitizers, 178 s beside other work; docs/testing.md).
constexpr int kBlockLimitS = 1080;

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The pages whose commands are tested: README.md, then docs/**/*.md in path order.
std::vector<fs::path> documentationPages(const fs::path& source) {
    std::vector<fs::path> pages{"README.md"};
    std::vector<fs::path> docs;
    if (fs::is_directory(source / "docs"))
        for (const auto& entry : fs::recursive_directory_iterator(source / "docs"))
            if (entry.is_regular_file() && entry.path().extension() == ".md")
                docs.push_back(fs::relative(entry.path(), source));
    std::sort(docs.begin(), docs.end());
    pages.insert(pages.end(), docs.begin(), docs.end());
    return pages;
}

struct DocumentedBlock {
    std::string page;  // relative to the source tree
    int line = 0;      // of its opening ```
    std::vector<ReadmeCommand> commands;
};

void PrintTo(const DocumentedBlock& b, std::ostream* os) {
    *os << b.page << ":" << b.line;
}

std::vector<DocumentedBlock> documentedBlocks() {
    const fs::path source = TESSIM_SOURCE_DIR;
    std::vector<DocumentedBlock> blocks;
    for (const auto& page : documentationPages(source)) {
        std::map<int, DocumentedBlock> byLine;
        for (const auto& c : readmeCommands(readText(source / page))) {
            auto& b = byLine[c.block];
            b.page = page.string();
            b.line = c.block;
            b.commands.push_back(c);
        }
        for (auto& [line, b] : byLine)
            blocks.push_back(std::move(b));
    }
    return blocks;
}

std::string blockName(const ::testing::TestParamInfo<DocumentedBlock>& info) {
    std::string name;
    for (const char ch : info.param.page)
        name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    name += "_L" + std::to_string(info.param.line);
    for (const auto& c : info.param.commands)
        if (c.slow)
            return name + "_slow";
    return name;
}

TEST(ReadmeCommands, AreFoundInShellAndConsoleBlocksOnly) {
    const std::string markdown = "```sh\n"
                                 "build/tessim list targets   # comment kept\n"
                                 "tessim run --target npu \\\n"
                                 "    --workload conv1080p\n"
                                 "ctest -L npu\n"
                                 "tessim bench   # readme-test: skip (slow)\n"
                                 "tessim dse --jobs 2   # readme-test: slow\n"
                                 "```\n"
                                 "```text\n"
                                 "tessim sweep SWEEP.yaml [--jobs N]\n"
                                 "```\n"
                                 "```console\n"
                                 "$ tessim probe ddr --target k1\n"
                                 "{\"schema\": 1}\n"
                                 "```\n"
                                 "    tessim run --indented\n";
    const auto commands = readmeCommands(markdown);
    ASSERT_EQ(commands.size(), 5u);
    EXPECT_EQ(commands[0].line, 2);
    EXPECT_EQ(commands[0].block, 1);
    EXPECT_EQ(commands[0].text, "build/tessim list targets   # comment kept");
    EXPECT_EQ(commands[1].line, 3);
    EXPECT_EQ(commands[1].block, 1);
    EXPECT_EQ(commands[1].text, "tessim run --target npu  --workload conv1080p");
    EXPECT_TRUE(commands[2].skipped);
    EXPECT_FALSE(commands[1].skipped);
    EXPECT_TRUE(commands[3].slow);
    EXPECT_FALSE(commands[3].skipped);
    EXPECT_FALSE(commands[1].slow);
    EXPECT_EQ(commands[4].line, 13);
    EXPECT_EQ(commands[4].block, 12);
    EXPECT_EQ(commands[4].text, "tessim probe ddr --target k1");
}

TEST(ReadmeCommands, LastLinesOfAnyOutputNameTheFailure) {
    EXPECT_EQ(lastLines("", 6), "");  // a command that failed silently (it threw before)
    EXPECT_EQ(lastLines("only line", 6), "only line");
    EXPECT_EQ(lastLines("a\nb\nc\n", 1), "c\n");
    EXPECT_EQ(lastLines("a\nb\nc\n", 2), "b\nc\n");
    EXPECT_EQ(lastLines("a\nb\nc", 2), "b\nc");
    EXPECT_EQ(lastLines("a\nb\nc\n", 3), "a\nb\nc\n");
    EXPECT_EQ(lastLines("a\nb\nc\n", 9), "a\nb\nc\n");
    EXPECT_EQ(lastLines("\n\n", 1), "\n");
    EXPECT_EQ(lastLines("a\nb", 0), "");
}

TEST(ReadmeCommands, ThePagesShowEnoughCommandsToTest) {
    std::size_t commands = 0;
    for (const auto& b : documentedBlocks())
        commands += b.commands.size();
    EXPECT_GE(commands, 20u) << "the pages show fewer commands than expected: is the parser right?";
}

class DocumentedBlockRuns : public ::testing::TestWithParam<DocumentedBlock> {};

TEST_P(DocumentedBlockRuns, EveryCommandExitsZero) {
    const DocumentedBlock& block = GetParam();
    const fs::path source = TESSIM_SOURCE_DIR;
    // TESSIM_README_BUILD: the build whose `tessim` the commands run; this test's own when unset.
    const char* readmeBuild = std::getenv("TESSIM_README_BUILD");
    const fs::path binaryDir =
        readmeBuild && *readmeBuild ? fs::path(readmeBuild) : fs::path(TESSIM_BINARY).parent_path();

    std::string pattern = (fs::temp_directory_path() / "tessim-readme-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    const fs::path root = pattern;
    const fs::path repo = root / "repo";
    fs::create_directory(repo);
    for (const auto& entry : fs::directory_iterator(source)) {
        const std::string name = entry.path().filename().string();
        // out/ stays the scratch tree's own: a sweep refuses to write over results of an earlier run.
        if (name != "build" && name != ".git" && name != "out")
            fs::create_directory_symlink(entry.path(), repo / name);
    }
    fs::create_directory_symlink(binaryDir, repo / "build");
    const bool haveShared = fs::is_directory(source.parent_path() / "shared");
    if (haveShared)
        fs::create_directory_symlink(source.parent_path() / "shared", root / "shared");

    const auto blockStart = std::chrono::steady_clock::now();
    for (const auto& c : block.commands) {
        const std::string where = block.page + ":" + std::to_string(c.line);
        // The sanitizer build has no benches (speed means nothing there); CI runs the docs'
        // commands against the release build, which has them.
        const bool benchMissing =
            startsWith(c.text, "build/bench/") && !fs::is_directory(binaryDir / "bench");
        if (c.skipped || benchMissing || (!haveShared && c.text.find("../shared/") != std::string::npos)) {
            std::cout << where << ": not run: " << c.text << "\n";
            continue;
        }
        const auto spent =
            std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - blockStart)
                .count();
        const long limit = kBlockLimitS - spent;
        if (limit <= 0) {
            ADD_FAILURE() << where << ": not run: the block used up its " << kBlockLimitS << " s";
            break;
        }
        std::ofstream(root / "command.sh") << c.text << "\n";
        const std::string shell = "cd '" + repo.string() + "' && PATH='" + binaryDir.string() +
                                  "':\"$PATH\" SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 timeout " +
                                  std::to_string(limit) + " bash '" + (root / "command.sh").string() +
                                  "' >'" + (root / "out").string() + "' 2>'" + (root / "err").string() + "'";
        const auto start = std::chrono::steady_clock::now();
        const int raw = std::system(shell.c_str());
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
        std::cout << where << ": " << std::fixed << std::setprecision(1) << wall << " s, exit " << status
                  << ": " << c.text << "\n";
        if (status != 0) {
            const std::string err = readText(root / "err");
            const std::string out = readText(root / "out");
            ADD_FAILURE() << where << ": `" << c.text << "` exited " << status
                          << (status == 124 ? " (timed out after " + std::to_string(limit) + " s)" : "")
                          << "\n"
                          << (!err.empty()   ? "stderr ends:\n" + lastLines(err, 6)
                              : !out.empty() ? "no stderr; stdout ends:\n" + lastLines(out, 6)
                                             : std::string("no output at all"));
        }
    }
    std::error_code ignored;
    fs::remove_all(root, ignored);  // the links only, never what they point to
}

INSTANTIATE_TEST_SUITE_P(Pages, DocumentedBlockRuns, ::testing::ValuesIn(documentedBlocks()), blockName);

}  // namespace
}  // namespace tessim::readme
