#include "sim/engine/EngineConfig.h"

#include <fmt/format.h>

#include "sim/core/IntegerMath.h"

namespace tessim {

EngineConfig EngineConfig::fromYaml(config::Reader& r, const std::string& name, ClockDomain defaultClock,
                                    Tick defaultQuantum) {
    using namespace config;
    EngineConfig c;
    c.name = name;
    c.clock = ClockDomain::fromHz(r.get<Frequency>("clock", Frequency{defaultClock.hz()},
                                                   Range<Frequency>{Frequency{1e3}, Frequency{1e11}})
                                      .hz);
    c.issueWidth = r.get<unsigned>("issue_width", 1u, Range<unsigned>{1, 16});
    c.vliw = r.get<bool>("vliw", false);
    if (auto slots = r.optionalChild("slots")) {
        if (!c.vliw)
            r.fail("slots", "slot classes need vliw: true");
        slots->describeKeysAs("<slot class>");
        for (const auto& entry : slots->self().entries())
            c.slots.push_back(
                SlotClassInfo{entry.first, slots->get<unsigned>(entry.first, Range<unsigned>{1, 64})});
        if (c.slots.empty())
            r.fail("slots", "give at least one slot class (e.g. {scalar: 5, vector: 6})");
    }
    // A vector register holds whole 32-bit elements at least, and (as RVV's VLEN) a power of two.
    c.registerBytes = static_cast<unsigned>(
        r.get<Bytes>("register_size", Bytes{32}, Range<Bytes>{Bytes{4}, Bytes{1 << 20}}).value);
    if ((c.registerBytes & (c.registerBytes - 1)) != 0)
        r.fail("register_size", fmt::format("a vector register of {} B: its size must be a power of two (as "
                                            "RVV's VLEN), like 16 B or 32 B",
                                            c.registerBytes));
    c.vectorRegisters = r.get<unsigned>("vector_registers", kVectorRegs, Range<unsigned>{1, kVectorRegs});
    c.scalarRegisters = r.get<unsigned>("scalar_registers", kRegIds - kScalarRegBase,
                                        Range<unsigned>{1, kRegIds - kScalarRegBase});
    c.registerGroups = r.get<bool>("register_groups", false);
    const std::string alignment =
        r.oneOf("vector_alignment", {"none", "element", "register"}, std::string("none"));
    c.vectorAlignment = alignment == "element"    ? VectorAlignment::Element
                        : alignment == "register" ? VectorAlignment::Register
                                                  : VectorAlignment::None;
    c.branchPenalty = r.get<unsigned>("branch_penalty", 0u, Range<unsigned>{0, 1000});
    c.takenBranchEndsGroup = r.get<bool>("taken_branch_ends_group", true);
    c.mispredictPenalty = r.get<unsigned>("mispredict_penalty", 0u, Range<unsigned>{0, 1000});
    if (auto bp = r.optionalChild("branch_predictor")) {
        BranchPredictorInfo& p = c.predictor;
        p.kind = bp->oneOf("kind", {"gshare", "bimodal", "none"});
        auto powerOfTwo = [&](const char* key, unsigned fallback, unsigned max) {
            const unsigned v = bp->get<unsigned>(key, fallback, Range<unsigned>{1, max});
            if ((v & (v - 1)) != 0)
                bp->fail(key, fmt::format("{} must be a power of two, not {}", key, v));
            return v;
        };
        p.entries = powerOfTwo("entries", 1024, 1u << 20);
        p.historyBits =
            bp->get<unsigned>("history_bits", p.kind == "gshare" ? 10u : 0u, Range<unsigned>{0, 30});
        if (p.kind != "gshare" && p.historyBits != 0)
            bp->fail("history_bits", "only a gshare predictor keeps a global history");
        p.returnStack = bp->get<unsigned>("return_stack", 8u, Range<unsigned>{0, 1024});
        p.indirectEntries = powerOfTwo("indirect_entries", 256, 1u << 20);
    }
    c.forkLatency = r.get<unsigned>("fork_latency", 0u, Range<unsigned>{0, 1000000});
    c.barrierLatency = r.get<unsigned>("barrier_latency", 0u, Range<unsigned>{0, 1000000});
    c.storeBuffer = r.get<unsigned>("store_buffer", 0u, Range<unsigned>{0, 4096});
    c.storeDataDelay = r.get<unsigned>("store_data_delay", 0u, Range<unsigned>{0, 64});
    c.storeMergeBytes = r.get<Bytes>("store_merge", Bytes{0}, Range<Bytes>{Bytes{0}, Bytes{4096}}).value;
    if ((c.storeMergeBytes & (c.storeMergeBytes - 1)) != 0)
        r.fail("store_merge", fmt::format("store_merge must be a power of two, not {} B", c.storeMergeBytes));
    c.storeMergeShift = ceilLog2(c.storeMergeBytes);  // 0 when merging is off
    c.quantum = secondsToTicks(r.get<Duration>("quantum", Duration{ticksToSeconds(defaultQuantum)},
                                               Range<Duration>{Duration{1e-12}, Duration{1.0}})
                                   .seconds);
    c.isMainCompute = r.get<bool>("main", true);
    return c;
}

int EngineConfig::slotClassIndex(const std::string& slotClass) const {
    for (std::size_t i = 0; i < slots.size(); ++i)
        if (slots[i].name == slotClass)
            return static_cast<int>(i);
    return -1;
}

}  // namespace tessim
