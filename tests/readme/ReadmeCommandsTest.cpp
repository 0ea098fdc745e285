// Every tessim command the README shows runs and exits 0, from a scratch copy of the source tree
// (links to it) with build/ and ../shared/ where the README expects them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "tests/readme/ReadmeCommands.h"

namespace tessim::readme {
namespace {

namespace fs = std::filesystem;

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string lastLines(const std::string& text, std::size_t count) {
    std::size_t at = text.size();
    for (std::size_t n = 0; n <= count && at != std::string::npos && at > 0; ++n)
        at = text.rfind('\n', at - 1);
    return at == std::string::npos ? text : text.substr(at + 1);
}

TEST(ReadmeCommands, AreFoundInShellAndConsoleBlocksOnly) {
    const std::string markdown = "```sh\n"
                                 "build/tessim list targets   # comment kept\n"
                                 "tessim run --target npu \\\n"
                                 "    --workload conv1080p\n"
                                 "ctest -L npu\n"
                                 "tessim bench   # readme-test: skip (slow)\n"
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
    ASSERT_EQ(commands.size(), 4u);
    EXPECT_EQ(commands[0].line, 2);
    EXPECT_EQ(commands[0].text, "build/tessim list targets   # comment kept");
    EXPECT_EQ(commands[1].line, 3);
    EXPECT_EQ(commands[1].text, "tessim run --target npu  --workload conv1080p");
    EXPECT_TRUE(commands[2].skipped);
    EXPECT_FALSE(commands[1].skipped);
    EXPECT_EQ(commands[3].line, 12);
    EXPECT_EQ(commands[3].text, "tessim probe ddr --target k1");
}

TEST(ReadmeCommands, EveryCommandRunsAndExitsZero) {
    const fs::path source = TESSIM_SOURCE_DIR;
    // TESSIM_README_BUILD: the build whose `tessim` the commands run (CI gives the release build
    // while the rest of the suite runs sanitized); this test's own build when unset.
    const char* readmeBuild = std::getenv("TESSIM_README_BUILD");
    const fs::path binaryDir =
        readmeBuild && *readmeBuild ? fs::path(readmeBuild) : fs::path(TESSIM_BINARY).parent_path();
    const auto commands = readmeCommands(readText(source / "README.md"));
    ASSERT_GE(commands.size(), 20u) << "README.md shows fewer commands than expected: is the parser right?";

    std::string pattern = (fs::temp_directory_path() / "tessim-readme-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    const fs::path root = pattern;
    const fs::path repo = root / "repo";
    fs::create_directory(repo);
    for (const auto& entry : fs::directory_iterator(source)) {
        const std::string name = entry.path().filename().string();
        if (name != "build" && name != ".git")
            fs::create_directory_symlink(entry.path(), repo / name);
    }
    fs::create_directory_symlink(binaryDir, repo / "build");
    const bool haveShared = fs::is_directory(source.parent_path() / "shared");
    if (haveShared)
        fs::create_directory_symlink(source.parent_path() / "shared", root / "shared");

    int ran = 0;
    for (const auto& c : commands) {
        if (c.skipped || (!haveShared && c.text.find("../shared/") != std::string::npos)) {
            std::cout << "README.md:" << c.line << ": not run: " << c.text << "\n";
            continue;
        }
        std::ofstream(root / "command.sh") << c.text << "\n";
        const std::string shell = "cd '" + repo.string() + "' && PATH='" + binaryDir.string() +
                                  "':\"$PATH\" SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 timeout 120 bash '" +
                                  (root / "command.sh").string() + "' >'" + (root / "out").string() +
                                  "' 2>'" + (root / "err").string() + "'";
        const int raw = std::system(shell.c_str());
        const int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
        ++ran;
        if (status != 0)
            ADD_FAILURE() << "README.md:" << c.line << ": `" << c.text << "` exited " << status
                          << (status == 124 ? " (timed out after 120 s)" : "") << "\n"
                          << lastLines(readText(root / "err"), 6);
    }
    EXPECT_GE(ran, 15);
    std::error_code ignored;
    fs::remove_all(root, ignored);  // the links only, never what they point to
}

}  // namespace
}  // namespace tessim::readme
