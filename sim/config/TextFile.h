// Input files other than YAML (SCALE-Sim configs and topologies) are read through here, with the
// checks the YAML loader makes: a regular file (a device such as /dev/zero would be read without
// end), of bounded size, UTF-8 text (binary bytes are named by line:column, never echoed).
#pragma once

#include <cstdint>
#include <string>

namespace tessim::config {

/// Throws ConfigError at the first byte that is not UTF-8 text (or a control character other than
/// tab, CR and LF); `expected` says what the file should be ("a configuration file is YAML text").
void checkUtf8Text(const std::string& text, const std::string& file, const std::string& expected);

/// The whole file, checked as above. `kind` names it in messages ("SCALE-Sim config"): "cannot
/// open SCALE-Sim config 'x.cfg': it is a directory".
std::string readTextFile(const std::string& path, const std::string& kind, std::uintmax_t maxBytes);

}  // namespace tessim::config
