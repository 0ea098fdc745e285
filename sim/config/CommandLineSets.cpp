#include "sim/config/CommandLineSets.h"

#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"

namespace tessim::config {

void applyCommandLineSets(const std::vector<std::string>& sets, const CommandLineTrees& trees) {
    int index = 0;
    for (const auto& assignment : sets) {
        ++index;
        Location where = commandLineLocation(index);
        auto eq = assignment.find('=');
        auto dot = assignment.find('.');
        if (eq == std::string::npos || dot == std::string::npos || dot > eq)
            throw ConfigError(where, "",
                              "--set expects key=value with a key starting with target., workload. or "
                              "plan. (got '" +
                                  assignment + "')");
        std::string root = assignment.substr(0, dot);
        std::string rest = assignment.substr(dot + 1);
        Node* node = root == "target"     ? trees.target
                     : root == "workload" ? trees.workload
                     : root == "plan"     ? trees.plan
                                          : nullptr;
        if (!node)
            throw ConfigError(where, assignment.substr(0, eq),
                              "--set keys start with target., workload. or plan. (got '" + root + ".')");
        if (node->isNull() && root == "workload")
            throw ConfigError(where, assignment.substr(0, eq), "--set workload.… needs --workload");
        // A plan (or target) made by --set alone is the command line's: its errors say so rather
        // than <unknown> (a key the plan leaves to its default is blamed on the plan).
        const bool made = node->isNull();
        applyOverride(*node, rest, where);
        if (made)
            node->setLocation(Location{"<command line>", 0, 0});
    }
}

}  // namespace tessim::config
