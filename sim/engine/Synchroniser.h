// An engine's synchronisation with the rest of the simulation: temporal decoupling (the engine
// runs ahead of SystemC time by at most a quantum, and only when someone could observe it),
// DMA waits, and the barriers and fork/join events of SyncHub with their latencies. The engine
// keeps its own cycle count; every call here takes the engine's local cycle and returns the
// cycle it may go on from.
#pragma once

#include <cstdint>

#include <tlm_utils/tlm_quantumkeeper.h>

#include "sim/core/DmaControl.h"
#include "sim/core/Time.h"
#include "sim/engine/EngineConfig.h"
#include "sim/engine/SyncHub.h"
#include "sim/ir/OpTable.h"

namespace tessim {

class Synchroniser {
public:
    // `config` must outlive the synchroniser (it is the engine's own).
    Synchroniser(const EngineConfig& config, SyncHub& hub);

    // At the start of the engine's thread.
    void start();
    // Synchronises when the local time has run a quantum ahead; cheap to call after every op.
    void keepQuantum(std::uint64_t cycle) {
        if (cycle >= nextCheck_)
            checkQuantum(cycle);
    }
    // Local time `cycle` becomes SystemC time (the thread waits until then).
    void synchronise(std::uint64_t cycle);
    // The same where another process has something to do before local time `cycle`; else
    // nothing (no one could act in between).
    void catchUp(std::uint64_t cycle);
    // A barrier, join or fork signal (`rule` is the op's SyncRule) reached at local `cycle`:
    // blocks the thread until released; returns the cycle the engine's next op may issue.
    std::uint64_t rendezvous(SyncRule rule, std::uint32_t tag, std::uint32_t count, std::uint64_t cycle);
    // The cycle by which the DMA transfers tagged `tag` that the engine started have completed.
    std::uint64_t dmaDone(DmaControlIf& dma, std::uint32_t tag, std::uint64_t cycle,
                          std::uint16_t initiator) const;

private:
    void checkQuantum(std::uint64_t cycle);

    const EngineConfig& config_;
    SyncHub& hub_;
    tlm_utils::tlm_quantumkeeper keeper_;
    std::uint64_t nextCheck_ = 0;  // the quantum is checked again from this cycle on
};

}  // namespace tessim
