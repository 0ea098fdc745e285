// `tessim list [targets|workloads|kernels|plans|papers|sweeps|ops|config]`: what the configuration
// library, the kernel registry, the op table and the target readers hold, one line each; alone,
// every kind under a heading. `--reference` with ops or config prints the generated reference page
// (docs/op-reference.md, docs/config-reference.md).
#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apps/tessim/Commands.h"
#include "run/pipeline/ConfigLibrary.h"
#include "run/pipeline/ConfigReference.h"
#include "run/pipeline/WorkloadTargets.h"
#include "sim/ir/OpReference.h"

namespace tessim::cli {
namespace {

const char* const kKinds[] = {"targets", "workloads", "kernels", "plans",
                              "papers",  "sweeps",    "ops",     "config"};

void listKind(const std::string& what, const std::string& indent) {
    if (what == "ops") {
        for (std::size_t k = 0; k < opKindCount(); ++k) {
            const OpDescriptor& d = opInfo(static_cast<OpKind>(k));
            std::cout << fmt::format("{}{:<24} {:<9} {}\n", indent, d.name, opClassName(d.opClass),
                                     d.summary);
        }
        return;
    }
    if (what == "config") {
        for (const auto& schema : configSchemas()) {
            std::string keys;
            for (const auto& key : schema.keys)
                keys += (keys.empty() ? "" : " ") + key.name;
            std::cout << fmt::format("{}{:<36} {}\n", indent, schema.name, keys);
        }
        return;
    }
    if (what == "kernels") {
        for (const auto& k : listKernels())
            std::cout << fmt::format("{}{:<24} {:<16} {}\n", indent, k.name,
                                     k.planDirectory.empty() ? "(no plans)" : "plans/" + k.planDirectory,
                                     k.description);
        return;
    }
    LibraryKind kind = what == "targets"     ? LibraryKind::Target
                       : what == "workloads" ? LibraryKind::Workload
                       : what == "plans"     ? LibraryKind::Plan
                       : what == "papers"    ? LibraryKind::Paper
                                             : LibraryKind::Sweep;
    if (kind == LibraryKind::Workload) {
        // Where each runs as it stands: the targets that build its schedule (default plan).
        const auto runs = libraryWorkloadTargets();
        for (const auto& e : listLibrary(kind)) {
            const auto it = runs.find(e.name);
            const std::string on = it == runs.end() || it->second.empty()
                                       ? "runs on no library target as given"
                                       : "runs on " + fmt::format("{}", fmt::join(it->second, ", "));
            std::cout << fmt::format("{}{:<24} {} [{}]\n", indent, e.name, e.description, on);
        }
        return;
    }
    for (const auto& e : listLibrary(kind))
        std::cout << fmt::format("{}{:<24} {}\n", indent, e.name, e.description);
}

}  // namespace

void addListCommand(CLI::App& app) {
    auto what = std::make_shared<std::string>();
    auto reference = std::make_shared<bool>(false);
    auto* sub =
        app.add_subcommand("list", "list the targets, workloads, kernels, plans (<kernel directory>/<plan>), "
                                   "papers, sweeps and op kinds, each with its description, and the "
                                   "keys of each component model");
    sub->add_option("what", *what,
                    "targets|workloads|kernels|plans|papers|sweeps|ops|config (default: all of them)")
        ->check(
            CLI::IsMember({"targets", "workloads", "kernels", "plans", "papers", "sweeps", "ops", "config"}));
    sub->add_flag("--reference", *reference,
                  "with ops: the op reference page in Markdown (fields, footprint, timing class of each "
                  "kind); with config: the configuration reference (every impl's keys, units, defaults)");
    sub->callback([what, reference] {
        runGuarded([&] {
            if (*reference) {
                if (*what != "ops" && *what != "config")
                    throw std::invalid_argument(
                        "--reference goes with `tessim list ops` or `tessim list config`");
                std::cout << (*what == "ops" ? opReferenceMarkdown() : configReferenceMarkdown());
                return;
            }
            if (!what->empty()) {
                listKind(*what, "");
                return;
            }
            for (const char* kind : kKinds) {
                std::cout << (kind == kKinds[0] ? "" : "\n") << kind << ":\n";
                listKind(kind, "  ");
            }
        });
    });
}

}  // namespace tessim::cli
