#include "sim/config/Location.h"

#include <fmt/format.h>

namespace tessim::config {

std::string toString(const Location& where) {
    std::string text = where.file.empty() ? std::string("<unknown>") : where.file;
    if (where.line > 0 && where.column == 0) {
        text += fmt::format(":{}", where.line);  // a whole line (a schedule's op)
    } else if (where.line > 0 || where.column > 0) {
        text += fmt::format(":{}:{}", where.line, where.column);
    }
    return text;
}

}  // namespace tessim::config
