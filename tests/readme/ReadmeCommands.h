// The commands a README shows, as a user would paste them: in ```sh (or bash, shell) blocks every
// line that starts with `tessim ` or `build/tessim `; in ```console blocks those lines after a
// `$ ` prompt. A trailing `\` joins the next line. Other blocks (```text synopses, YAML, output)
// are never run, nor is a command whose line carries the marker `readme-test: skip`.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace tessim::readme {

inline constexpr const char* kSkipMarker = "readme-test: skip";

struct ReadmeCommand {
    int line = 0;  // 1-based line of the command's first line
    std::string text;
    bool skipped = false;
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
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (startsWith(line, "```")) {
            inBlock = !inBlock;
            language = inBlock ? trimmed(line.substr(3)) : "";
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
        if (!startsWith(text, "tessim ") && !startsWith(text, "build/tessim "))
            continue;
        ReadmeCommand c;
        c.line = number;
        while (!text.empty() && text.back() == '\\' && std::getline(in, line)) {
            ++number;
            text.pop_back();
            text += " " + trimmed(line);
        }
        c.text = text;
        c.skipped = text.find(kSkipMarker) != std::string::npos;
        commands.push_back(c);
    }
    return commands;
}

}  // namespace tessim::readme
