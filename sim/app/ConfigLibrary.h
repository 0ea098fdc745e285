// Finds targets, workloads, plans and papers by name in the configuration library, or takes a
// path. The library root is configs/ (and workloads/library/) of the source tree, or
// $TESSIM_CONFIG_DIR / $TESSIM_WORKLOAD_DIR when set.
#pragma once

#include <string>
#include <vector>

namespace tessim {

enum class LibraryKind { Target, Workload, Plan, Paper, Sweep };

std::string libraryDirectory(LibraryKind kind);
// A path when `nameOrPath` names an existing file or looks like one (has '/' or an extension),
// else <library>/<name>.yaml. Throws ConfigError when nothing is found, listing what exists.
std::string resolveLibraryPath(LibraryKind kind, const std::string& nameOrPath);

struct LibraryEntry {
    std::string name;
    std::string path;
    std::string description;
};
std::vector<LibraryEntry> listLibrary(LibraryKind kind);

}  // namespace tessim
