#include "sim/config/TextFile.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"

namespace fs = std::filesystem;

namespace tessim::config {

void checkUtf8Text(const std::string& text, const std::string& file, const std::string& expected) {
    int line = 1, column = 1;
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t length = c < 0x80           ? 1
                             : (c >> 5) == 0x6  ? 2
                             : (c >> 4) == 0xE  ? 3
                             : (c >> 3) == 0x1E ? 4
                                                : 0;
        bool valid = length != 0 && i + length <= text.size() &&
                     (length > 1 || c >= 0x20 || c == '\t' || c == '\n' || c == '\r');
        for (std::size_t k = 1; valid && k < length; ++k)
            valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
        if (!valid)
            throw ConfigError(Location{file, line, column}, "",
                              fmt::format("byte 0x{:02x} is not UTF-8 text ({})", c, expected));
        if (c == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
        i += length;
    }
}

std::string readTextFile(const std::string& path, const std::string& kind, std::uintmax_t maxBytes) {
    auto failure = [&](const std::string& reason) {
        return ConfigError(Location{path, 0, 0}, "",
                           fmt::format("cannot open {} '{}': {}", kind, path, reason));
    };
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status))
        throw failure("no such file");
    if (fs::is_directory(status))
        throw failure("it is a directory");
    if (!fs::is_regular_file(status))
        throw failure("it is not a regular file");
    if (fs::file_size(path, ec) > maxBytes)
        throw failure(fmt::format("larger than {} MiB", maxBytes >> 20));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw failure("cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    checkUtf8Text(s, path, kind + " files are text");
    return s;
}

}  // namespace tessim::config
