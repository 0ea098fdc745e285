// `tessim list targets|workloads|plans|papers|sweeps`: what the configuration library holds.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/app/ConfigLibrary.h"
#include "sim/cli/Commands.h"

namespace tessim::cli {

void addListCommand(CLI::App& app) {
    auto what = std::make_shared<std::string>();
    auto* sub =
        app.add_subcommand("list", "list the targets, workloads, plans, papers or sweeps in the library");
    sub->add_option("what", *what, "targets|workloads|plans|papers|sweeps")
        ->required()
        ->check(CLI::IsMember({"targets", "workloads", "plans", "papers", "sweeps"}));
    sub->callback([what] {
        LibraryKind kind = *what == "targets"     ? LibraryKind::Target
                           : *what == "workloads" ? LibraryKind::Workload
                           : *what == "plans"     ? LibraryKind::Plan
                           : *what == "papers"    ? LibraryKind::Paper
                                                  : LibraryKind::Sweep;
        for (const auto& e : listLibrary(kind))
            std::cout << fmt::format("{:<24} {}\n", e.name, e.description);
    });
}

}  // namespace tessim::cli
