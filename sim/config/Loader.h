#pragma once

#include "sim/config/Location.h"
#include "sim/config/Node.h"

#include <string>
#include <string_view>

namespace tessim::config {

/// Parses a YAML file into a Node tree and resolves `include:` at its top level: a file name or
/// a list of them, relative to the including file. Included files are merged in list order, then
/// the including file's own keys override them; maps merge deeply, anything else is replaced.
/// Syntax errors, missing files and include cycles are ConfigErrors (the last two at the include
/// line). Node locations name the file each value was written in.
Node loadYamlFile(const std::string& path);

/// Like loadYamlFile, for text already in memory; `pseudoFileName` appears in locations and
/// anchors relative includes.
Node loadYamlString(std::string text, std::string pseudoFileName);

/// `--set` support: sets `dottedKey` ("dram.timing.tRCD", "layers[1].name") to `value` parsed as
/// YAML (scalar or flow: "[1, 2]", "{a: 1}"), creating missing map levels and replacing an
/// existing value. Every new node gets the location `where`.
void applyOverride(Node& root, std::string_view dottedKey, std::string_view value, const Location& where);

/// Splits "key=value" and applies it; ConfigError at `where` without an '='.
void applyOverride(Node& root, std::string_view assignment, const Location& where);

/// The location for the command-line argument at `argIndex`: "<command line>", column = index.
Location commandLineLocation(int argIndex);

}  // namespace tessim::config
