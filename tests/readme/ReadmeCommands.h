// The commands a README or docs page shows, as a user would paste them: in ```sh (or bash, shell)
// blocks every line that starts with `tessim `, `build/tessim ` or `build/bench/` (a speed
// benchmark), or `riscv64-linux-gnu-gcc ` or `clang-14 `, which build a program for `--program`;
// in ```console blocks those lines
// after a `$ ` prompt. A trailing `\` joins the next line. Other blocks (```text synopses, YAML,
// output) are never run, nor is a command whose line carries the marker `readme-test: skip`; one
// carrying `readme-test: slow` runs, in a test whose name says so (`ctest -E _slow` leaves it out).
// A block is a recipe: its commands run in order in one scratch folder (an `emit > x.jsonl` feeds
// the next line's `--schedule x.jsonl`), so the suite runs one test per block.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace tessim::readme {

inline constexpr const char* kSkipMarker = "readme-test: skip";
inline constexpr const char* kSlowMarker = "readme-test: slow";

struct ReadmeCommand {
    int line = 0;   // 1-based line of the command's first line
    int block = 0;  // 1-based line of the opening ``` of its block
    std::string text;
    bool skipped = false;
    bool slow = false;
};

inline bool startsWith(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

inline std::string trimmed(const std::string& s) {
    const auto a = s.find_first_not_of(" \t");
    if (a == std::string::npos)
        return "";
    return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

inline std::vector<ReadmeCommand> readmeCommands(const std::string& markdown) {
    std::vector<ReadmeCommand> commands;
    std::istringstream in(markdown);
    std::string line, language;
    bool inBlock = false;
    int number = 0, blockLine = 0;
    while (std::getline(in, line)) {
        ++number;
        if (startsWith(line, "```")) {
            inBlock = !inBlock;
            language = inBlock ? trimmed(line.substr(3)) : "";
            blockLine = number;
            continue;
        }
        if (!inBlock)
            continue;
        std::string text = trimmed(line);
        if (language == "console") {
            if (!startsWith(text, "$ "))
                continue;
            text = trimmed(text.substr(2));
        } else if (language != "sh" && language != "bash" && language != "shell") {
            continue;
        }
        // The RISC-V compilers build the programs that `tessim run --program` runs next.
        if (!startsWith(text, "tessim ") && !startsWith(text, "build/tessim ") &&
            !startsWith(text, "build/bench/") && !startsWith(text, "riscv64-linux-gnu-gcc ") &&
            !startsWith(text, "clang-14 "))
            continue;
        ReadmeCommand c;
        c.line = number;
        c.block = blockLine;
        while (!text.empty() && text.back() == '\\' && std::getline(in, line)) {
            ++number;
            text.pop_back();
            text += " " + trimmed(line);
        }
        c.text = text;
        c.skipped = text.find(kSkipMarker) != std::string::npos;
        c.slow = text.find(kSlowMarker) != std::string::npos;
        commands.push_back(c);
    }
    return commands;
}

// The last `count` lines of `text` (all of it when shorter; "" for ""), for a failure message.
inline std::string lastLines(const std::string& text, std::size_t count) {
    if (count == 0 || text.empty())
        return "";
    // A final newline ends the last line; it does not start another one.
    std::size_t end = text.back() == '\n' ? text.size() - 1 : text.size();
    std::size_t start = end;
    for (std::size_t n = 0; n < count; ++n) {
        const auto at = start == 0 ? std::string::npos : text.rfind('\n', start - 1);
        if (at == std::string::npos)
            return text;
        start = at;
    }
    return text.substr(start + 1);
}

}  // namespace tessim::readme
