// What a JSON syntax error says, in words a user reads beside the file's own line and column.
#pragma once

#include <exception>
#include <string>

namespace tessim::config {

// nlohmann's parse_error text without its library tag ("[json.exception.parse_error.101]") and
// its own position ("parse error at line 1, column 30: "), which the caller replaces with the
// file's: "syntax error while parsing value - invalid literal; last read: '"nop"} e'; …".
inline std::string jsonSyntaxMessage(const std::exception& e) {
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0)
        if (const auto close = what.find("] "); close != std::string::npos)
            what.erase(0, close + 2);
    if (what.rfind("parse error", 0) == 0)
        if (const auto colon = what.find(": "); colon != std::string::npos)
            what.erase(0, colon + 2);
    return what;
}

}  // namespace tessim::config
