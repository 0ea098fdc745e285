// The readers a kernel's factory opens on its workload and its plan, with the keys that every
// workload or plan may carry already read, so each kernel reads only its own keys.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config/Reader.h"

namespace tessim {

// plan.ddr_offset: where a layer's tensors start in DDR (bytes, default 0), as a network that runs a
// layer at a time (LayerSequence) places them.
inline std::uint64_t readDdrOffset(config::Reader& plan) {
    if (!plan.has("ddr_offset"))
        return 0;  // not echoed: a single layer's plan stays as written
    return plan.get<std::uint64_t>("ddr_offset", config::Range<std::uint64_t>{0, std::uint64_t{1} << 36});
}

// The workload map: `kernel` (the factory was chosen by it), `name` and `description` read.
// The reader refers to `workload`, which must outlive it.
inline config::Reader workloadReader(const config::Node& workload) {
    config::Reader w(workload);
    w.get<std::string>("kernel");
    w.get<std::string>("name", std::string());
    w.get<std::string>("description", std::string());
    return w;
}

// The plan map (a missing plan reads as an empty one) with `name` and `description` read. It
// owns the node its reader refers to, so it is neither copied nor moved.
struct PlanReader {
    explicit PlanReader(const config::Node& plan)
        : node(plan.isNull() ? config::Node::makeMap(plan.location().file.empty()
                                                         ? config::Location{"<default plan>", 0, 0}
                                                         : plan.location())
                             : plan),
          reader(node) {
        reader.get<std::string>("name", std::string());
        reader.get<std::string>("description", std::string());
    }
    PlanReader(const PlanReader&) = delete;
    PlanReader& operator=(const PlanReader&) = delete;

    const config::Node node;
    config::Reader reader;
};

// The plan's `reduction` of RVV GEMM and TT loops that sum an accumulator's lanes: `unordered`
// (vfredusum, the default) or `ordered` (vfredosum: strictly in element order, as a compiler must
// keep C's sum order without -ffast-math; slower on the X60). `reduces`: the plan's loop sums
// lanes at all (an fc vectorised over its outputs does not; then `ordered` is refused).
inline bool readReduction(config::Reader& plan, bool reduces) {
    const bool ordered =
        plan.oneOf("reduction", {"unordered", "ordered"}, std::string("unordered")) == "ordered";
    if (ordered && !reduces)
        plan.fail("reduction",
                  "this plan's loop sums no lanes (vectorised over the outputs): only 'unordered' applies");
    return ordered;
}

}  // namespace tessim
