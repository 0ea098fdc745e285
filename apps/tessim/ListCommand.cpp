// `tessim list [targets|workloads|kernels|plans|papers|sweeps]`: what the configuration library and
// the kernel registry hold, one line each with its description; alone, every kind under a heading.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/tessim/Commands.h"
#include "run/pipeline/ConfigLibrary.h"

namespace tessim::cli {
namespace {

const char* const kKinds[] = {"targets", "workloads", "kernels", "plans", "papers", "sweeps"};

void listKind(const std::string& what, const std::string& indent) {
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
    for (const auto& e : listLibrary(kind))
        std::cout << fmt::format("{}{:<24} {}\n", indent, e.name, e.description);
}

}  // namespace

void addListCommand(CLI::App& app) {
    auto what = std::make_shared<std::string>();
    auto* sub =
        app.add_subcommand("list", "list the targets, workloads, kernels, plans (<kernel directory>/<plan>), "
                                   "papers and sweeps, each with its description");
    sub->add_option("what", *what, "targets|workloads|kernels|plans|papers|sweeps (default: all of them)")
        ->check(CLI::IsMember({"targets", "workloads", "kernels", "plans", "papers", "sweeps"}));
    sub->callback([what] {
        runGuarded([&] {
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
