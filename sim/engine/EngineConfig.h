// An engine's typed configuration, read once from its YAML map (`impl: engine`):
//
//   core:
//     impl: engine
//     clock: 1.6 GHz            # default: the target's clock
//     issue_width: 2            # in-order interlocked superscalar: up to N ops per cycle
//                               # (VLIW without slot classes: the most ops in a bundle)
//     vliw: true                # ops between bundle marks issue together in one cycle
//     slots: {scalar: 5, vector: 6}   # VLIW slot classes; each unit names its `slot:`
//     register_size: 32 B       # one vector register (VLEN / 8)
//     vector_registers: 32      # default 64
//     scalar_registers: 32      # default 64
//     register_groups: true     # LMUL groups: an op spanning G registers uses vd..vd+G−1
//     vector_alignment: element # vector loads/stores start at a multiple of: none (default),
//                               # element (its size), register (register_size); validate checks it
//     branch_penalty: 2         # cycles lost after a taken branch (front-end redirect)
//     taken_branch_ends_group: true  # a predicted taken branch ends its issue group (default)
//     store_data_delay: 2       # cycles after issue a scalar store reads its data (default 0)
//     store_merge: 16 B         # a store into the youngest store's aligned 16 B joins its entry
//     fork_latency: 100         # cycles from the fork that releases a join until the joiner runs
//     barrier_latency: 200      # cycles from a barrier's last arrival until its engines run on
//     quantum: 1 us             # temporal-decoupling quantum (default: the target's)
//     main: true                # counts for stall_fraction
//
// `memories`, `dma` and `units` are wiring, read by the target. Without `quantum`, the engine
// takes the default the target passes (fromYaml's defaultQuantum).
#pragma once

#include <string>
#include <vector>

#include "sim/config/Reader.h"
#include "sim/core/Time.h"
#include "sim/ir/Op.h"
#include "sim/machine/TargetInfo.h"

namespace tessim {

struct EngineConfig {
    std::string name;
    ClockDomain clock;
    unsigned issueWidth = 1;
    bool vliw = false;                 // honour Op::kBundleStart: a bundle issues in one cycle
    std::vector<SlotClassInfo> slots;  // VLIW slot classes, in YAML order
    unsigned registerBytes = 32;       // vector register size (VLEN / 8)
    unsigned vectorRegisters = kVectorRegs;
    unsigned scalarRegisters = kRegIds - kScalarRegBase;
    bool registerGroups = false;  // off: a register id names a whole vector of any length
    VectorAlignment vectorAlignment = VectorAlignment::None;
    unsigned branchPenalty = 0;  // cycles: a taken branch the front end predicted
    // A predicted taken branch ends its issue group: the next op issues a cycle later at the
    // earliest (then + branchPenalty). Off: the target is fetched in time to issue beside the branch.
    bool takenBranchEndsGroup = true;
    unsigned mispredictPenalty = 0;  // cycles: a branch it predicted wrong (Op::kMispredicted)
    BranchPredictorInfo predictor;   // for op streams that predict their branches (programs)
    unsigned forkLatency = 0;        // cycles: a fork's signal to the joined engine's next op
    unsigned barrierLatency = 0;     // cycles: a barrier's last arrival to every engine's next op
    // Stores in flight at most (a store buffer's entries), each held from issue until its memory
    // accepts it; a store that finds them all held waits (structural). 0: unbounded. Not in VLIW
    // bundles.
    unsigned storeBuffer = 0;
    // Bytes of one store-buffer entry: a store into the same aligned bytes as the youngest store
    // joins its entry (a byte loop fills one entry per 16 B). 0: every store takes an entry.
    std::uint64_t storeMergeBytes = 0;  // a power of two
    unsigned storeMergeShift = 0;       // log2(storeMergeBytes)
    // Cycles after its issue that a scalar store reads its data register (its address it reads at
    // issue): a store may issue that long before its data is ready. 0: both at issue.
    unsigned storeDataDelay = 0;
    Tick quantum = 1'000'000;   // temporal-decoupling quantum (1 µs)
    bool isMainCompute = true;  // counts for stall_fraction

    static EngineConfig fromYaml(config::Reader& r, const std::string& name, ClockDomain defaultClock,
                                 Tick defaultQuantum);
    // Index of a slot class in `slots`, or −1.
    int slotClassIndex(const std::string& slotClass) const;
};

}  // namespace tessim
