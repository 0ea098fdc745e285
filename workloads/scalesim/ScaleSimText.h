// Text handling shared by the SCALE-Sim input readers (config .cfg and topology .csv): SCALE-Sim
// reads section names, keys and file suffixes without regard to case.
#pragma once

#include <cctype>
#include <string>

namespace tessim {

inline std::string lowerCase(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace tessim
