#include "models/dma/StridedDma.h"

#include "sim/core/ProcessFailure.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "models/memory/CycleParameter.h"

namespace tessim {

StridedDmaConfig StridedDmaConfig::fromYaml(config::Reader& r, const std::string& name) {
    using namespace config;
    StridedDmaConfig c;
    c.channels = r.get<unsigned>("channels", 1u, Range<unsigned>{1, 256});
    c.burst = r.get<Bytes>("burst", Bytes{256}, Range<Bytes>{Bytes{1}, Bytes{1 << 20}}).value;
    c.outstanding = r.get<unsigned>("outstanding", 8u, Range<unsigned>{1, 4096});
    c.alignment = r.get<Bytes>("alignment", Bytes{1}, Range<Bytes>{Bytes{1}, Bytes{1 << 20}}).value;
    if ((c.alignment & (c.alignment - 1)) != 0)
        r.fail("alignment", fmt::format("{} B is not a power of two", c.alignment));
    c.queueDepth = r.get<unsigned>("queue_depth", 16u, Range<unsigned>{1, 1 << 20});
    c.clock =
        ClockDomain::fromHz(r.get<Frequency>("clock", Range<Frequency>{Frequency{1e3}, Frequency{1e11}}).hz);
    c.setupCycles = readCycles(r, "setup", c.clock, 0);
    c.lookahead = secondsToTicks(r.get<Duration>("lookahead", Duration{1e-6}).seconds);
    c.timeOrdered = r.get<bool>("time_ordered", false);
    if (auto e = r.optionalChild("energy")) {
        c.joulesPerByte = e->get<Energy>("per_byte", Energy{0.0}).joules;
        c.joulesPerDescriptor = e->get<Energy>("per_descriptor", Energy{0.0}).joules;
    }
    c.staticWatts = r.get<Power>("static_power", Power{0.0}).watts;
    (void)name;
    return c;
}

StridedDma::StridedDma(sc_core::sc_module_name name, const StridedDmaConfig& config)
    : DmaEngine(name), config_(config), channels_(config.channels), buffer_(config.burst) {
    for (auto& ch : channels_)
        ch.inflight.assign(config_.outstanding, 0);
    gp_.set_extension(&ext_);
    gp_.set_byte_enable_ptr(nullptr);
    gp_.set_dmi_allowed(false);
    ext_.source = AccessSource::DmaBurst;
    SC_THREAD(drainProcess);
    drain_ = sc_core::sc_get_current_process_handle();
}

// The payload would free its extensions on destruction; ours is a member.
StridedDma::~StridedDma() {
    gp_.clear_extension(&ext_);
}

Tick StridedDma::nextBurstTime(const Channel& ch) const {
    Tick t = std::max(ch.nextIssue, ch.queue.front().ready);
    return std::max(t, ch.inflight[ch.head]);
}

void StridedDma::schedule(unsigned channel) {
    Channel& ch = channels_[channel];
    if (ch.queue.empty())
        return;
    Tick t = nextBurstTime(ch);
    // A descriptor queued ahead of the one scheduled may make the channel's next burst earlier.
    if (ch.scheduled && t >= ch.scheduledAt)
        return;
    ch.scheduled = true;
    ch.scheduledAt = t;
    heap_.push({t, channel});
    // Wake the drain process in time for this burst (an earlier pending wake-up is kept).
    if (sc_core::sc_get_status() & (sc_core::SC_RUNNING | sc_core::SC_PAUSED))
        wakeup_.notify(delayUntil(t));
}

void StridedDma::start(const DmaArgs& desc, std::uint32_t tag, Tick issue, const OpOrigin& origin) {
    if (desc.channel >= channels_.size())
        throw std::runtime_error(fmt::format("DMA {}: channel {} does not exist ({} channels)", name(),
                                             desc.channel, channels_.size()));
    if (desc.group != 0 && (!groups_ || desc.group >= groups_->size()))
        throw std::runtime_error(
            fmt::format("DMA {}: dma_start (tag {}) names multicast group {}, which the target lacks", name(),
                        tag, desc.group));
    if (desc.group == 0 && desc.multicastCount > 0 && desc.multicastStride == 0)
        throw std::runtime_error(fmt::format(
            "DMA {}: dma_start (tag {}) multicasts to the same address {} times; other memories are "
            "reached through a multicast group",
            name(), tag, desc.multicastCount + 1));
    Channel& ch = channels_[desc.channel];
    ++tags_[tagKey(origin.engine, tag)].pending;
    ++descriptors_;
    const Tick setup = setupTicks();
    Descriptor d{desc, tag, issue + setup};
    d.origin = origin;
    d.origin.issued = issue;
    if (config_.timeOrdered) {
        // A full queue takes the descriptor when a slot frees in simulated time (step()); the
        // engine goes on, as it does below.
        if (ch.queue.size() >= config_.queueDepth || !ch.waiting.empty()) {
            ++queueFullStalls_;
            const auto issuedFirst = [](const Descriptor& a, const Descriptor& b) {
                return a.origin.issued != b.origin.issued ? a.origin.issued < b.origin.issued
                                                          : a.origin.engine < b.origin.engine;
            };
            ch.waiting.insert(std::upper_bound(ch.waiting.begin(), ch.waiting.end(), d, issuedFirst),
                              std::move(d));
            return;
        }
        enqueue(ch, std::move(d));
        schedule(desc.channel);
        return;
    }
    bool waited = false;
    while (ch.queue.size() >= config_.queueDepth) {
        step();
        waited = true;
    }
    if (waited) {
        ++queueFullStalls_;
        d.ready = std::max(issue, ch.queueFreed) + setup;
    }
    enqueue(ch, std::move(d));
    schedule(desc.channel);
}

void StridedDma::enqueue(Channel& ch, Descriptor d) {
    const auto before = [](const Descriptor& a, const Descriptor& b) {
        return a.ready != b.ready ? a.ready < b.ready : a.origin.engine < b.origin.engine;
    };
    const Descriptor& front = ch.queue.empty() ? d : ch.queue.front();
    const bool begun = front.firstBurst != kTickMax || front.row > 0 || front.plane > 0;
    std::size_t pos = ch.queue.size();
    while (pos > (begun ? 1u : 0u) && before(d, ch.queue[pos - 1]))
        --pos;
    ch.queue.insert(ch.queue.begin() + static_cast<std::ptrdiff_t>(pos), std::move(d));
}

Tick StridedDma::transfer(bool write, std::uint8_t space, std::uint64_t addr, std::uint32_t bytes, Tick at,
                          const Descriptor& d) {
    // An error names the dma_start of the transfer, not the op its engine has reached since.
    try {
        int socket = spaceToSocket_[space];
        if (socket < 0)
            throw std::runtime_error(
                fmt::format("DMA {}: channel {} tag {} addresses memory space {} that is not connected",
                            name(), d.args.channel, d.tag, space));
        ext_.space = space;
        ext_.initiator = static_cast<std::uint16_t>(initiatorBase_ + d.args.channel);
        ext_.functional = functional_;
        ext_.conflictTicks = 0;
        gp_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp_.set_address(addr);
        gp_.set_data_length(bytes);
        gp_.set_streaming_width(bytes);
        gp_.set_data_ptr(functional_ ? buffer_.data() : nullptr);
        gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time delay = delayUntil(at);
        memory[static_cast<unsigned>(socket)]->b_transport(gp_, delay);
        if (gp_.is_response_error())
            throw std::runtime_error(fmt::format(
                "DMA {}: dma_start (channel {}, tag {}) {} of {} B at space {} offset {:#x} failed: {}",
                name(), d.args.channel, d.tag, write ? "write" : "read", bytes, space, addr,
                gp_.get_response_string()));
        return absoluteAfter(delay);
    } catch (...) {
        OpFailure::rethrowNaming(d.origin.engine, d.origin.op);
    }
}

bool StridedDma::step() {
    if (heap_.empty())
        return false;
    unsigned c = heap_.top().second;
    Tick issue = heap_.top().first;
    heap_.pop();
    Channel& ch = channels_[c];
    if (!ch.scheduled || issue != ch.scheduledAt)
        return false;  // stale: the channel was scheduled earlier since
    ch.scheduled = false;
    Descriptor& d = ch.queue.front();
    const DmaArgs& a = d.args;
    std::uint32_t rows = std::max<std::uint32_t>(a.rows, 1), planes = std::max<std::uint32_t>(a.planes, 1);
    Tick burstDone = issue;
    if (a.rowBytes > 0) {
        std::uint64_t rowSrc =
            a.src + static_cast<std::uint64_t>(a.srcPlaneStride * d.plane + a.srcRowStride * d.row);
        std::uint64_t rowDst =
            a.dst + static_cast<std::uint64_t>(a.dstPlaneStride * d.plane + a.dstRowStride * d.row);
        std::uint64_t src = rowSrc + d.offset;
        std::uint64_t len =
            std::min<std::uint64_t>(a.rowBytes - d.offset, config_.burst - src % config_.burst);
        std::uint32_t n = static_cast<std::uint32_t>(len);
        d.firstBurst = std::min(d.firstBurst, issue);
        Tick readDone = transfer(false, a.srcSpace, src, n, issue, d);
        bytesRead_ += n;
        if (a.group != 0) {
            for (std::uint8_t space : (*groups_)[a.group]) {
                burstDone = std::max(burstDone, transfer(true, space, rowDst + d.offset, n, readDone, d));
                bytesWritten_ += n;
            }
        } else {
            for (unsigned i = 0; i <= a.multicastCount; ++i) {
                std::uint64_t dst = rowDst + d.offset + i * a.multicastStride;
                burstDone = std::max(burstDone, transfer(true, a.dstSpace, dst, n, readDone, d));
                bytesWritten_ += n;
            }
        }
        ++bursts_;
        ch.bytes += n;
        d.offset += n;
        ch.inflight[ch.head] = burstDone;
        ch.head = (ch.head + 1) % ch.inflight.size();
        ch.nextIssue = issue + config_.clock.period;
    }
    d.done = std::max(d.done, burstDone);
    if (d.offset >= a.rowBytes) {
        d.offset = 0;
        if (++d.row >= rows) {
            d.row = 0;
            ++d.plane;
        }
    }
    if (a.rowBytes == 0 || d.plane >= planes) {
        TagState& tag = tags_[tagKey(d.origin.engine, d.tag)];
        tag.done = std::max(tag.done, d.done);
        --tag.pending;
        ch.lastDone = std::max(ch.lastDone, d.done);
        lastDone_ = std::max(lastDone_, d.done);
        if (trace_ && d.firstBurst != kTickMax)
            trace_->span(std::string(name()) + ".ch" + std::to_string(c), fmt::format("dma tag {}", d.tag),
                         d.firstBurst, d.done);
        if (observer_)
            observer_->onTransferEnd(static_cast<std::uint16_t>(initiatorBase_ + c), d.tag,
                                     d.ready - setupTicks(), d.done, d.origin);
        ch.queueFreed = issue;
        ch.queue.pop_front();
        if (!ch.waiting.empty()) {
            Descriptor next = std::move(ch.waiting.front());
            ch.waiting.pop_front();
            next.ready = std::max(next.origin.issued, issue) + setupTicks();
            enqueue(ch, std::move(next));
        }
        if (config_.timeOrdered)
            descriptorDone_.notify(sc_core::SC_ZERO_TIME);
        schedule(c);
        return true;
    }
    schedule(c);
    return false;
}

Tick StridedDma::completion(std::uint32_t tag, Tick asker, std::uint16_t initiator) {
    auto it = tags_.find(tagKey(initiator, tag));
    if (it == tags_.end())
        return asker;
    while (it->second.pending > 0) {
        if (!waitsForDrain()) {
            step();
            continue;
        }
        // The asker starts nothing before its own time: issue what no one else can precede, and
        // wait for the drain only when that does not finish the tag.
        issueBefore(std::min(asker, quietUntil()));
        rewake();
        if (it->second.pending > 0)
            sc_core::wait(descriptorDone_);
    }
    return it->second.done;
}

bool StridedDma::waitsForDrain() const {
    if (!config_.timeOrdered || !(sc_core::sc_get_status() & sc_core::SC_RUNNING))
        return false;
    sc_core::sc_process_handle self = sc_core::sc_get_current_process_handle();
    return self.valid() && self.proc_kind() == sc_core::SC_THREAD_PROC_ && self != drain_;
}

void StridedDma::drainAll() {
    while (!heap_.empty())
        step();
}

Tick StridedDma::lastCompletion() const {
    // The remaining schedule is already determined; computing it does not change the answer
    // any other query would give, so this is logically const.
    const_cast<StridedDma*>(this)->drainAll();
    return lastDone_;
}

void StridedDma::drainProcess() {
    runProcessGuarded([this] { drainLoop(); });
}

void StridedDma::drainLoop() {
    for (;;) {
        sc_core::wait(wakeup_);
        if (config_.timeOrdered)
            issueBefore(quietUntil());
        else
            issueBefore(nowTicks() + config_.lookahead + 1);
        rewake();
    }
}

void StridedDma::rewake() {
    if (!heap_.empty())
        wakeup_.notify(delayUntil(heap_.top().first));
}

Tick StridedDma::quietUntil() {
    // The drain's own wake-up starts no descriptor: it is not a rival.
    wakeup_.cancel();
    const Tick now = nowTicks();
    const Tick idle = static_cast<Tick>(sc_core::sc_time_to_pending_activity().value());
    return idle >= kTickMax - now ? kTickMax : now + idle;
}

void StridedDma::issueBefore(Tick horizon) {
    if (!config_.timeOrdered) {
        while (!heap_.empty() && heap_.top().first < horizon)
            step();
        return;
    }
    // A descriptor is ready `setup` after its engine's time, and an engine's time is at least the
    // time it next runs: a burst before `horizon` + setup has every rival queued. An engine that a
    // finished descriptor releases runs on from the descriptor's end, so a finish at burst time t
    // bounds the rest by t + setup. A run of bursts per wake-up, not one, while the engines are
    // ahead or blocked.
    const Tick setup = setupTicks();
    Tick limit = horizon >= kTickMax - setup ? kTickMax : horizon + setup;
    while (!heap_.empty() && heap_.top().first < limit) {
        const Tick t = heap_.top().first;
        if (step())
            limit = std::min(limit, t + setup);
    }
}

void StridedDma::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(name());
    node.add("descriptors", descriptors_, "descriptors");
    node.add("bursts", bursts_, "bursts");
    node.add("bytes_read", bytesRead_, "B", "bytes read from sources");
    node.add("bytes_written", bytesWritten_, "B", "bytes written to destinations (multicast counts each)");
    node.add("queue_full_stalls", queueFullStalls_, "descriptors",
             "descriptors that found their channel's queue full");
    node.add("last_completion", ticksToSeconds(lastDone_), "s");
    for (std::size_t c = 0; c < channels_.size(); ++c)
        node.add(fmt::format("channel{}.bytes", c), channels_[c].bytes, "B", "bytes read by the channel");
    energy.addEvents(name(), "byte", bytesRead_, config_.joulesPerByte);
    energy.addEvents(name(), "descriptor", descriptors_, config_.joulesPerDescriptor);
    energy.addStaticPower(name(), config_.staticWatts);
    (void)seconds;
}

}  // namespace tessim
