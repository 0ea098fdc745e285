// A descriptor-driven DMA engine (impl: dma): channels with descriptor queues, 1-D to 3-D
// strided transfers (overlapping source windows allowed), bursts of at most `burst` bytes that
// never cross a burst-aligned source boundary, at most `outstanding` bursts in flight per
// channel, multicast, and functional copies through the memories' backing stores.
//
// Timing without SystemC waits: start() only queues. Queued bursts of all channels are issued
// in time order from a small heap (each burst reserves the memories' and interconnects'
// timelines through TLM b_transport with annotated delays), so channels share bandwidth as
// they would in hardware. Work is done when an engine asks completion(tag), when
// lastCompletion() is asked, and by a drain process that wakes at the earliest queued burst so
// no burst is issued after simulated time has passed it.
//
// With time_ordered (several engines sharing the channels), a burst is issued only once every
// descriptor that could precede it is queued, and an engine whose tag is not done by then waits
// in simulated time. Engines run ahead of each other by up to the quantum, so eager issuing
// served the channels in the order their engines' quanta ran. A descriptor is ready `setup`
// after its engine's time, which is never behind the time the engine next runs, so bursts
// before the kernel's next pending activity + setup are safe (issueBefore); the memories see the
// bursts in time order whatever the quantum. A descriptor issued to a full queue waits beside it
// in issue order and enters when a slot frees; its engine goes on, as in eager mode.
//
// Multicast: destination i (0..multicastCount) is dst + i·multicastStride in dstSpace, or, when
// multicastStride is 0, dst in space dstSpace + i. One read feeds every destination.
//
// YAML (impl: dma): channels, burst (bytes), outstanding (bursts per channel), queue_depth
// (descriptors per channel; a full queue delays the new descriptor), alignment (bytes that source and
// destination addresses and strides are multiples of; default 1 B), clock, setup (cycles or
// duration per descriptor), lookahead (how far ahead of simulated time the drain process
// issues, eager mode), time_ordered (bool, default false: a burst issues once no descriptor yet to
// start can precede it),
// energy: {per_byte (bytes read), per_descriptor}, static_power.
#pragma once

#include <deque>
#include <queue>
#include <unordered_map>
#include <vector>

#include "models/dma/DmaEngine.h"
#include "sim/config/Reader.h"
#include "sim/core/MemoryAccess.h"

namespace tessim {

struct StridedDmaConfig {
    unsigned channels = 1;
    std::uint64_t burst = 256;
    std::uint64_t alignment = 1;  // descriptor addresses and strides: multiples of it (validate checks)
    unsigned outstanding = 8;
    unsigned queueDepth = 16;
    ClockDomain clock;
    std::uint64_t setupCycles = 0;
    Tick lookahead = 1'000'000;
    bool timeOrdered = false;
    double joulesPerByte = 0.0;
    double joulesPerDescriptor = 0.0;
    double staticWatts = 0.0;

    static StridedDmaConfig fromYaml(config::Reader& r, const std::string& name);
};

class StridedDma : public DmaEngine {
public:
    SC_HAS_PROCESS(StridedDma);
    StridedDma(sc_core::sc_module_name name, const StridedDmaConfig& config);
    ~StridedDma() override;

    void start(const DmaArgs& desc, std::uint32_t tag, Tick issue, const OpOrigin& origin = {}) override;
    Tick completion(std::uint32_t tag, Tick asker, std::uint16_t initiator = 0) override;
    Tick lastCompletion() const override;
    unsigned channelCount() const override { return static_cast<unsigned>(channels_.size()); }
    std::uint64_t alignment() const override { return config_.alignment; }
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const override;

    const StridedDmaConfig& config() const { return config_; }
    std::uint64_t bytesRead() const { return bytesRead_; }
    std::uint64_t bytesWritten() const { return bytesWritten_; }
    std::uint64_t bursts() const { return bursts_; }
    // Completion tick of the last descriptor finished on a channel.
    Tick channelCompletion(unsigned channel) const { return channels_.at(channel).lastDone; }

private:
    struct Descriptor {
        DmaArgs args;
        std::uint32_t tag;
        Tick ready;  // issue + setup
        Tick firstBurst = kTickMax;
        Tick done = 0;
        std::uint32_t row = 0, plane = 0;
        std::uint64_t offset = 0;  // inside the current row
        OpOrigin origin{};
    };
    struct Channel {
        std::deque<Descriptor> queue;
        std::deque<Descriptor> waiting;  // time-ordered: issued to a full queue, in issue order
        std::vector<Tick> inflight;      // completion of the last `outstanding` bursts, ring
        std::size_t head = 0;
        Tick nextIssue = 0;
        Tick queueFreed = 0;  // when the last descriptor left the queue
        Tick lastDone = 0;
        bool scheduled = false;  // in the heap
        Tick scheduledAt = 0;    // the heap entry that counts (earlier ones left in it are stale)
        std::uint64_t bytes = 0;
    };
    struct TagState {
        std::uint32_t pending = 0;
        Tick done = 0;
    };
    using HeapEntry = std::pair<Tick, unsigned>;

    Tick setupTicks() const { return config_.clock.at(config_.setupCycles); }
    Tick nextBurstTime(const Channel& ch) const;
    // A channel's queue holds descriptors in the order they are ready (engine index between
    // equals), behind the one whose bursts have begun: the engines sharing a channel reach it in
    // simulated time, not in the order their quanta run.
    void enqueue(Channel& ch, Descriptor d);
    void schedule(unsigned channel);
    // Issues the earliest queued burst; true when it finished a descriptor.
    bool step();
    // Time-ordered: issues every burst that no descriptor yet to start can precede, given that no
    // engine starts one before `horizon`; otherwise every burst before `horizon`.
    void issueBefore(Tick horizon);
    // The time the other processes next run (cancels the drain's own wake-up); then rewake().
    Tick quietUntil();
    void rewake();
    // In time-ordered mode a thread of the simulation (not the drain process) waits for the
    // drain instead of stepping itself.
    bool waitsForDrain() const;
    void drainAll();
    void drainProcess();
    void drainLoop();
    Tick transfer(bool write, std::uint8_t space, std::uint64_t addr, std::uint32_t bytes, Tick at,
                  const Descriptor& d);

    StridedDmaConfig config_;
    std::vector<Channel> channels_;
    std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<HeapEntry>> heap_;
    // By (engine, tag): each engine's tags are its own.
    static std::uint64_t tagKey(std::uint16_t engine, std::uint32_t tag) {
        return std::uint64_t{engine} << 32 | tag;
    }
    std::unordered_map<std::uint64_t, TagState> tags_;
    sc_core::sc_event wakeup_;
    sc_core::sc_event descriptorDone_;  // time-ordered mode: a tag may be done, a queue slot free
    sc_core::sc_process_handle drain_;
    tlm::tlm_generic_payload gp_;
    AccessExtension ext_;
    std::vector<unsigned char> buffer_;
    Tick lastDone_ = 0;
    std::uint64_t descriptors_ = 0, bursts_ = 0, bytesRead_ = 0, bytesWritten_ = 0, queueFullStalls_ = 0;
};

}  // namespace tessim
