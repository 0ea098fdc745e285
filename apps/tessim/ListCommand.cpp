// `tessim list targets|workloads|kernels|plans|papers|sweeps`: what the configuration library and
// the kernel registry hold.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/tessim/Commands.h"
#include "run/pipeline/ConfigLibrary.h"

namespace tessim::cli {

void addListCommand(CLI::App& app) {
    auto what = std::make_shared<std::string>();
    auto* sub = app.add_subcommand(
        "list", "list the targets, workloads, kernels, plans (<kernel directory>/<plan>), papers or sweeps");
    sub->add_option("what", *what, "targets|workloads|kernels|plans|papers|sweeps")
        ->check(CLI::IsMember({"targets", "workloads", "kernels", "plans", "papers", "sweeps"}));
    sub->callback([what] {
        if (what->empty())  // CLI11's own message would only say "what is required"
            throw CLI::ValidationError(
                "tessim list: say what to list: targets, workloads, kernels, plans, papers or sweeps");
        if (*what == "kernels") {
            for (const auto& k : listKernels())
                std::cout << fmt::format("{:<24} {:<16} {}\n", k.name,
                                         k.planDirectory.empty() ? "(no plans)" : "plans/" + k.planDirectory,
                                         k.description);
            return;
        }
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
