// Finds targets, workloads, plans and papers by name in the configuration library, or takes a
// path. The library root is configs/ (and workloads/library/) of the source tree, or
// $TESSIM_CONFIG_DIR / $TESSIM_WORKLOAD_DIR when set. Plans are found per kernel, in
// configs/plans/<the kernel's plan directory>/ (see workloads/KernelRegistry.cpp).
#pragma once

#include <string>
#include <vector>

#include "sim/config/Node.h"

namespace tessim {

enum class LibraryKind { Target, Workload, Plan, Paper, Sweep };

std::string libraryDirectory(LibraryKind kind);
// The library's C programs (workloads/programs/ beside the workload library's folder): sources a
// reproduction compiles and runs with `run --program`.
std::string programDirectory();
// A path when `nameOrPath` names an existing file or looks like one (has '/' or an extension),
// else <library>/<name>.yaml. Throws ConfigError when nothing is found, listing what exists.
std::string resolveLibraryPath(LibraryKind kind, const std::string& nameOrPath);

// A plan for the kernel of `workload` (a Null node when there is none): a path as for
// resolveLibraryPath, "<directory>/<name>" in the plan library, or a name looked up in the
// kernel's plan directory. Without a known kernel, a name must be unique across the plan
// directories. Throws ConfigError naming the kernel's plans (and where else the name exists).
std::string resolvePlanPath(const std::string& nameOrPath, const config::Node& workload);

// The library plan of the workload's kernel that is named after `strategy` and has that strategy
// (configs/plans/conv2d/static-single.yaml for "static-single"), or "" when there is none. A run
// given `--set plan.strategy=S` without --plan starts from it, so that it is the run `--plan S`
// gives: the library plan's other keys (tile_w: full, ...) apply too.
std::string libraryPlanForStrategy(const std::string& strategy, const config::Node& workload);

struct LibraryEntry {
    std::string name;
    std::string path;
    std::string description;
};
// Plans are named "<directory>/<plan>".
std::vector<LibraryEntry> listLibrary(LibraryKind kind);

struct KernelListing {
    std::string name;
    std::string planDirectory;  // under configs/plans/; "" for a kernel without plans
    std::string description;
};
// The kernels of the registry (workloads/KernelRegistry.cpp), in its order.
std::vector<KernelListing> listKernels();

}  // namespace tessim
