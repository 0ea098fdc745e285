#include "models/memory/Cache.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "models/memory/CycleParameter.h"
#include "sim/core/IntegerMath.h"
#include "sim/energy/SramArrayModel.h"

namespace tessim {

CacheConfig CacheConfig::fromYaml(config::Reader& r, const std::string& name) {
    using namespace config;
    CacheConfig c;
    c.level = r.get<std::string>("level", name);
    c.size = r.get<Bytes>("size", Range<Bytes>{Bytes{1}, Bytes{~0ULL}}).value;
    c.ways = r.get<unsigned>("ways", Range<unsigned>{1, 64});
    c.lineBytes =
        static_cast<unsigned>(r.get<Bytes>("line", Bytes{64}, Range<Bytes>{Bytes{4}, Bytes{4096}}).value);
    if ((c.lineBytes & (c.lineBytes - 1)) != 0)
        r.fail("line", "the line size must be a power of two");
    if (c.size % (std::uint64_t{c.ways} * c.lineBytes) != 0)
        r.fail("size", fmt::format("size must be a multiple of ways × line ({} B)",
                                   std::uint64_t{c.ways} * c.lineBytes));
    std::string policy = r.oneOf("policy", {"lru", "plru", "random", "bip", "dip"}, std::string("lru"));
    c.policy = policy == "lru"    ? ReplacementPolicy::Lru
               : policy == "plru" ? ReplacementPolicy::Plru
               : policy == "bip"  ? ReplacementPolicy::Bip
               : policy == "dip"  ? ReplacementPolicy::Dip
                                  : ReplacementPolicy::Random;
    if (c.policy == ReplacementPolicy::Plru && (c.ways & (c.ways - 1)) != 0)
        r.fail("policy", "plru needs a power-of-two number of ways");
    c.seed = r.get<std::uint64_t>("seed", std::uint64_t{1});
    c.clock =
        ClockDomain::fromHz(r.get<Frequency>("clock", Range<Frequency>{Frequency{1e3}, Frequency{1e11}}).hz);
    c.hitCycles = readCycles(r, "hit_latency", c.clock);
    c.mshrs = r.get<unsigned>("mshrs", 8u, Range<unsigned>{1, 1024});
    c.writebackBuffer = r.get<unsigned>("writeback_buffer", 8u, Range<unsigned>{1, 1024});
    if (auto p = r.optionalChild("prefetcher")) {
        const std::string kind = p->oneOf("kind", {"none", "next-line", "stride"}, std::string("none"));
        c.prefetcher = kind == "next-line" ? CacheConfig::Prefetcher::NextLine
                       : kind == "stride"  ? CacheConfig::Prefetcher::Stride
                                           : CacheConfig::Prefetcher::None;
        c.prefetchDegree = p->get<unsigned>("degree", 1u, Range<unsigned>{1, 16});
    }
    c.ports = r.get<unsigned>("ports", 1u, Range<unsigned>{1, 64});
    c.portCycles = readCycles(r, "port_occupancy", c.clock, 1);
    c.fillCycles = readCycles(r, "fill_occupancy", c.clock, 0);
    c.writeBackCycles = readCycles(r, "write_back_occupancy", c.clock, c.portCycles);
    if (c.portCycles == 0)
        r.fail("port_occupancy", "a line look-up holds its port for one cycle at least");
    if (c.writeBackCycles == 0)
        r.fail("write_back_occupancy", "a write-back holds its port for one cycle at least");
    const auto granule =
        r.get<Bytes>("write_granule", Bytes{c.lineBytes}, Range<Bytes>{Bytes{1}, Bytes{c.lineBytes}}).value;
    if ((granule & (granule - 1)) != 0)
        r.fail("write_granule", "the write granule must be a power of two");
    c.writeGranule = static_cast<unsigned>(granule);
    c.writeStreaming = r.get<unsigned>("write_streaming", 0u, Range<unsigned>{0, 1u << 20});
    c.writeBacksTouch = r.get<bool>("write_backs_touch", true);
    c.prefetchUsesTouch = r.get<bool>("prefetch_uses_touch", true);
    c.storeFillsAtLru = r.get<bool>("store_fills_at_lru", false);
    c.streamedAtLru = r.get<bool>("streamed_at_lru", false);
    c.storeBytesPerCycle = r.get<double>("store_bytes_per_cycle", 0.0, Range<double>{0.0, 1e6});
    // Both place a line at the LRU position, which plru and random have not.
    const bool hasLruPosition = c.policy != ReplacementPolicy::Plru && c.policy != ReplacementPolicy::Random;
    for (const auto& [key, atLru] :
         {std::pair{"store_fills_at_lru", c.storeFillsAtLru}, std::pair{"streamed_at_lru", c.streamedAtLru}})
        if (atLru && !hasLruPosition)
            r.fail(key,
                   fmt::format("an insertion position needs policy lru, bip or dip (policy is {}; with it, "
                               "set {}: false)",
                               policy, key));
    if (r.has("miss_lookahead"))
        c.missLookahead = secondsToTicks(r.get<Duration>("miss_lookahead").seconds);
    c.sameTimeTurns = r.get<bool>("same_time_turns", false);
    if (c.sameTimeTurns && c.missLookahead != 0)
        r.fail("same_time_turns", "requests take turns only in exact time order: set miss_lookahead: 0 ns");
    c.next = r.get<std::string>("next");
    const bool staticGiven = r.has("static_power");
    c.staticWatts = r.get<Power>("static_power", Power{0.0}).watts;
    if (auto e = r.optionalChild("energy")) {
        // The SRAM array model (sim/energy/SramArrayModel.h) gives energies of a line-wide access,
        // leakage and area for this size; energies stated explicitly for an array of
        // reference_size follow the configured size along the model's energy curve, an explicit
        // static_power in proportion to the size.
        std::optional<SramArrayModel> model;
        if (auto a = e->optionalChild("array"))
            model = SramArrayModel::fromYaml(*a);
        const SramArrayCost array = model ? model->cost({c.size, 1, c.lineBytes, c.ports}) : SramArrayCost{};
        c.readJoules = e->get<Energy>("read", Energy{array.readJoules}).joules;
        c.writeJoules =
            e->get<Energy>("write", Energy{e->has("read") ? c.readJoules : array.writeJoules}).joules;
        c.fillJoules = e->get<Energy>("fill", Energy{array.readJoules}).joules;
        if (!staticGiven)
            c.staticWatts = array.staticWatts;
        c.areaMm2 = array.areaMm2;
        if (e->has("reference_size")) {
            if (!model)
                e->fail("reference_size",
                        "scaling energies to the cache's size needs the array model (array:)");
            const double reference = static_cast<double>(
                e->get<Bytes>("reference_size", Range<Bytes>{Bytes{1}, Bytes{~0ULL}}).value);
            const double size = static_cast<double>(c.size);
            const double perAccess = model->read64Joules(size) / model->read64Joules(reference);
            if (e->has("read"))
                c.readJoules *= perAccess;
            if (e->has("write") || e->has("read"))
                c.writeJoules *= perAccess;
            if (e->has("fill"))
                c.fillJoules *= perAccess;
            if (staticGiven)
                c.staticWatts *= size / reference;
        }
    }
    return c;
}

Cache::Cache(sc_core::sc_module_name name, const CacheConfig& config)
    : Memory(name, config.level, ~std::uint64_t{0}), next("next"), config_(config),
      tags_(config.sets(), config.ways, config.policy, config.seed), mshrs_(config.mshrs),
      writebackBuffer_(config.writebackBuffer), ports_(config.ports),
      hitTicks_(config.clock.at(config.hitCycles)), portTicks_(config.clock.at(config.portCycles)),
      fillTicks_(config.clock.at(config.fillCycles)),
      writeBackTicks_(config.clock.at(config.writeBackCycles)), edges_(config.clock.period) {
    lineShift_ = ceilLog2(config_.lineBytes);
    // Whole cycles (the port's clock), one figure per count of bytes a store writes into a line.
    if (config.storeBytesPerCycle > 0) {
        storeHold_.resize(config.lineBytes + 1);
        for (unsigned b = 0; b <= config.lineBytes; ++b)
            storeHold_[b] = std::max(portTicks_, config.clock.at(static_cast<std::uint64_t>(
                                                     std::ceil(b / config.storeBytesPerCycle))));
    }
    nextGp_.set_extension(&nextExt_);
    nextGp_.set_byte_enable_ptr(nullptr);
    nextGp_.set_dmi_allowed(false);
    nextGp_.set_streaming_width(config_.lineBytes);
}

// The payload would free its extensions on destruction; ours is a member.
Cache::~Cache() {
    nextGp_.clear_extension(&nextExt_);
}

void Cache::setNextLevel(std::uint8_t space, std::uint64_t capacity) {
    nextExt_.space = space;
    setCapacity(capacity);
}

void Cache::resetTiming() {
    Memory::resetTiming();
    tags_.reset();
    mshrs_.reset();
    lastHold_ = 0;
    writebackBuffer_.reset();
    lastWritebackHold_ = 0;
    strides_ = {};
    knownSlots_ = {};
    prefetches_ = prefetchHits_ = prefetchesDropped_ = 0;
    for (auto& p : ports_)
        p = ReservationTimeline{};
    reads_ = writes_ = hits_ = readMisses_ = writeMisses_ = 0;
    lineAccesses_ = fills_ = evictions_ = writebacks_ = writebacksAtEnd_ = mshrStalls_ = 0;
    mshrStallTicks_ = 0;
    storeMissRun_ = 0;
    streamedAllocations_ = 0;
}

Tick Cache::sendNext(bool write, std::uint64_t addr, Tick at, std::uint16_t initiator) {
    nextExt_.initiator = initiator;
    nextExt_.source = write ? AccessSource::CacheWriteBack : AccessSource::CacheFill;
    nextGp_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    nextGp_.set_address(addr);
    nextGp_.set_data_length(config_.lineBytes);
    nextGp_.set_data_ptr(nullptr);
    nextGp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    const Tick now = transportNow();
    sc_core::sc_time delay = sc_core::sc_time::from_value(at > now ? at - now : 0);
    next->b_transport(nextGp_, delay);
    if (nextGp_.is_response_error())
        throw std::runtime_error(fmt::format("cache {}: {} of line {:#x} at the next level failed: {}",
                                             name(), write ? "write-back" : "fill", addr,
                                             nextGp_.get_response_string()));
    return transportNow() + delay.value();
}

namespace {

// The requests that go below the private caches at one simulated time (misses, prefetches,
// write-backs of cores whose caches keep exact time order, `same_time_turns`). The kernel runs the
// processes of one time in an order of its own, which moves with the quantum; the requests are
// served in an order of their own instead: every initiator's first request of the time before
// any second one, and among equals by a priority that a hash of the time and the initiator
// gives (stateless, so the same run gives the same answer in any process and after any other
// run, and fair: any initiator is first among any others equally often).
struct SameTimeRequest {
    std::uint16_t initiator;
    unsigned nth;  // the initiator's requests of this time before this one
    std::uint64_t priority;
    bool served;
};
struct SameTimeRequests {
    const sc_core::sc_simcontext* simulation = nullptr;
    Tick tick = kTickMax;
    std::vector<SameTimeRequest> present;
};
SameTimeRequests sameTime;

std::uint64_t mixTime(Tick t) {  // splitmix64's finaliser
    std::uint64_t z = t + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

void Cache::takeTurn(std::uint16_t initiator) {
    const Tick now = transportNow();
    const sc_core::sc_simcontext* simulation = sc_core::sc_get_curr_simcontext();
    if (sameTime.simulation != simulation || sameTime.tick != now) {
        sameTime.simulation = simulation;
        sameTime.tick = now;
        sameTime.present.clear();
    }
    // An initiator's requests of one time come one after another: the earlier ones are served.
    unsigned nth = 0;
    for (const auto& r : sameTime.present)
        nth += r.initiator == initiator ? 1 : 0;
    const std::size_t mine = sameTime.present.size();
    sameTime.present.push_back(
        SameTimeRequest{initiator, nth, mixTime(now ^ (std::uint64_t{initiator} << 48)), false});
    // No other process runs at this time: no request can join this one, and the delta cycle
    // would only switch to the kernel and back.
    if (sameTime.present.size() == 1 && !sc_core::sc_pending_activity_at_current_time()) {
        sameTime.present[mine].served = true;
        return;
    }
    // One delta cycle: every request of this delta has said so. Then one request goes per delta
    // cycle, the first in the order above of those not yet served.
    for (;;) {
        sc_core::wait(sc_core::SC_ZERO_TIME);
        const SameTimeRequest* head = nullptr;
        for (const auto& r : sameTime.present)
            if (!r.served &&
                (!head || r.nth < head->nth || (r.nth == head->nth && r.priority < head->priority)))
                head = &r;
        if (head == &sameTime.present[mine]) {
            sameTime.present[mine].served = true;
            return;
        }
    }
}

void Cache::waitUntil(Tick at, std::uint16_t initiator) {
    if (config_.missLookahead == kTickMax || requestSource_ != AccessSource::Engine)
        return;
    const Tick now = transportNow();
    const bool wait = at > now + config_.missLookahead;
    if (!wait && !(config_.sameTimeTurns && at == now))
        return;
    // No other process has anything to do at all (a core alone, the others idle or done): no one
    // could present a request meanwhile, and a wait would only switch to the kernel and back.
    if (!sc_core::sc_pending_activity())
        return;
    // Only a thread may wait (probes and tests call from outside the simulation).
    sc_core::sc_process_handle self = sc_core::sc_get_current_process_handle();
    if (!self.valid() || self.proc_kind() != sc_core::SC_THREAD_PROC_)
        return;
    // Counted before (another thread may enter this memory meanwhile) and after the wait.
    ++waitsInTransport_;
    if (wait)
        sc_core::wait(ticksToScTime(at - config_.missLookahead - now));
    if (config_.sameTimeTurns)
        takeTurn(initiator);
    ++waitsInTransport_;
}

// A line filled from the next level is written into the array, and a dirty victim read out of it,
// through a port: each holds one for `fill_occupancy` cycles (from the fill's arrival; from the
// eviction), so the core's own look-ups wait behind them.
void Cache::holdForFill(Tick at) {
    if (fillTicks_ == 0)
        return;
    takePort(edges_.alignUp(at), fillTicks_);
}

// A dirty victim leaves through the write-back buffer: an entry is held from when the line
// enters it until the next level accepts the line, so a level below that cannot keep up (a full
// DDR write queue) pushes back on the evicting access. Returns when the victim has left the way.
Tick Cache::evict(const CacheTags::Victim& victim, Tick at, std::uint16_t initiator) {
    if (!victim.valid)
        return at;
    ++evictions_;
    if (!victim.dirty)
        return at;
    ++writebacks_;
    holdForFill(at);
    writebackBuffer_.forgetBefore(transportNow());
    const Tick enter = writebackBuffer_.start(at, lastWritebackHold_);
    if (enter > at)
        noteWait(enter - at);
    // The write-back reaches the next level in time order, as an engine's misses do.
    waitUntil(enter, initiator);
    const Tick accepted = std::max(enter, sendNext(true, victim.lineNumber << lineShift_, enter, initiator));
    writebackBuffer_.hold(enter, accepted);
    lastWritebackHold_ = accepted - enter;
    return enter;
}

Tick Cache::writeBackDirtyLines(Tick at) {
    Tick done = at;
    requestSource_ = AccessSource::CacheWriteBack;
    // Outside any access: the simulated time is read again (as after a wait in a transport), not
    // taken from this cache's last access.
    ++waitsInTransport_;
    for (const std::uint64_t lineNumber : tags_.takeDirtyLines()) {
        ++writebacks_;
        ++writebacksAtEnd_;
        writebackBuffer_.forgetBefore(std::min(at, transportNow()));
        const Tick enter = writebackBuffer_.start(at, lastWritebackHold_);
        const Tick accepted = std::max(enter, sendNext(true, lineNumber << lineShift_, enter, 0));
        writebackBuffer_.hold(enter, accepted);
        lastWritebackHold_ = accepted - enter;
        done = std::max(done, accepted);
    }
    return done;
}

// Each port looks up one line per `port_occupancy` cycles (a store: its bytes at
// `store_bytes_per_cycle`); an access takes the port free first.
Tick Cache::reservePort(Tick arrival, Tick period) {
    ReservationTimeline* port = &ports_[0];
    for (std::size_t p = 1; p < ports_.size(); ++p)
        if (ports_[p].earliestStart(arrival, period) < port->earliestStart(arrival, period))
            port = &ports_[p];
    return port->reserve(arrival, period);
}

inline Tick Cache::accessLine(std::uint64_t lineNumber, bool write, Tick arrival, std::uint16_t initiator,
                              bool wholeLine, Tick hold) {
    ++lineAccesses_;
    const Tick t = takePort(arrival, hold);
    noteWait(t - arrival);
    CacheTags::Line* present = config_.writeBacksTouch || requestSource_ != AccessSource::CacheWriteBack
                                   ? tags_.touchIfPresent(lineNumber, !config_.prefetchUsesTouch)
                                   : tags_.findIfPresent(lineNumber);
    // A plain hit: present, not brought by the prefetcher, its data there by the end of the look-up.
    if (present && !present->prefetched && present->readyAt <= t + hitTicks_) {
        ++hits_;
        if (write)
            present->dirty = true;
        return t + hitTicks_;
    }
    return lookUpRest(lineNumber, write, t, initiator, wholeLine, present);
}

Tick Cache::lookUpRest(std::uint64_t lineNumber, bool write, Tick t, std::uint16_t initiator, bool wholeLine,
                       CacheTags::Line* present) {
    const bool hit = present != nullptr;
    // In write streaming, a run of store misses with no read between them: the stores are taken
    // to overwrite the line, which is allocated without a fetch.
    const bool streaming = !hit && write && config_.writeStreaming != 0 &&
                           requestSource_ == AccessSource::Engine && ++storeMissRun_ > config_.writeStreaming;
    CacheTags::Victim victim;
    CacheTags::Line& line =
        hit ? *present
            : tags_.install(lineNumber, victim,
                            write && requestSource_ == AccessSource::Engine && !wholeLine &&
                                (streaming ? config_.streamedAtLru : config_.storeFillsAtLru));
    if (hit) {
        ++hits_;
        const bool usedPrefetch = line.prefetched;
        if (usedPrefetch) {
            ++prefetchHits_;
            line.prefetched = false;
        }
        if (write)
            line.dirty = true;
        if (line.readyAt > t + hitTicks_ && t < line.missAt) {
            // The fill in flight was asked for by an access later in time than this one, which
            // was processed first: this access missed first and gets the line one fill latency
            // after its own tag check.
            Tick ownFill = t + (line.readyAt - line.missAt);
            line.readyAt = std::min(line.readyAt, ownFill);
            line.missAt = t;
        }
        const Tick ready = std::max(t + hitTicks_, line.readyAt);
        // A stream that reaches a prefetched line keeps the prefetcher ahead of it.
        if (usedPrefetch && !write)
            prefetchFrom(lineNumber, t + hitTicks_, initiator);
        return ready;
    }
    if (write)
        ++writeMisses_;
    else
        ++readMisses_;
    if (streaming && !wholeLine)
        ++streamedAllocations_;
    if (write && (wholeLine || streaming)) {
        // A write of the whole line (a write-back from the level above) replaces every byte:
        // the line is allocated without reading it from the next level.
        Tick issue = t + hitTicks_;
        const Tick ready = std::max(issue, evict(victim, issue, initiator));
        line.readyAt = ready;
        line.missAt = t;
        line.dirty = true;
        return ready;
    }
    // An MSHR free at this miss's time (holds that ended before now no longer matter).
    mshrs_.forgetBefore(transportNow());
    Tick start = mshrs_.start(t, lastHold_);
    if (start > t) {
        ++mshrStalls_;
        mshrStallTicks_ += start - t;
        noteWait(start - t);
        // An in-order core's load/store unit cannot hand this cache another miss before an MSHR
        // frees: later memory ops of the engine wait behind it (a hit under a full MSHR file would
        // not, but the unit is modelled as one queue).
        if (engineAccess_ != nullptr)
            engineAccess_->conflictTicks = std::max(engineAccess_->conflictTicks, start - engineArrival_);
    }
    // The tag check precedes the request to the next level; the write-back of a dirty victim
    // leaves through a write buffer and does not delay the fill.
    Tick issue = start + hitTicks_;
    waitUntil(issue, initiator);
    ++fills_;
    // The fill goes out at once; its data lands in the way once the victim has left it. The fill
    // is presented first: the victim's write-back may wait for room in the write-back buffer, and
    // the next level must see this fill at its time, before what others present meanwhile.
    const Tick fetched = sendNext(false, lineNumber << lineShift_, issue, initiator);
    Tick filled = std::max(fetched, evict(victim, issue, initiator));
    holdForFill(filled);
    mshrs_.hold(start, filled);
    lastHold_ = filled - start;
    line.readyAt = filled;
    line.missAt = t;
    line.dirty = write;
    // `line` may be replaced by a prefetch into its set from here on.
    if (!write)
        prefetchFrom(lineNumber, issue, initiator);
    return filled;
}

// tags_.contains(), but a line whose slot is remembered needs one compare.
bool Cache::prefetchCandidatePresent(std::uint64_t lineNumber) {
    KnownSlot& known = knownSlots_[lineNumber % knownSlots_.size()];
    if (known.line == lineNumber && tags_.holds(known.slot, lineNumber))
        return true;
    const std::size_t slot = tags_.slotOfLine(lineNumber);
    if (slot == tags_.slots())
        return false;
    known = KnownSlot{lineNumber, slot};
    return true;
}

// Trained on demand read misses and on reads that use a prefetched line.
void Cache::prefetchFrom(std::uint64_t lineNumber, Tick at, std::uint16_t initiator) {
    if (config_.prefetcher == CacheConfig::Prefetcher::None)
        return;
    std::int64_t step = 1;
    if (config_.prefetcher == CacheConfig::Prefetcher::Stride) {
        // Lines per 4 KiB region: the stride is learnt per region, as streams rarely share one.
        const std::uint64_t region = (lineNumber << lineShift_) >> 12;
        StrideEntry& e = strides_[region % strides_.size()];
        if (e.region != region) {
            e = StrideEntry{region, lineNumber, 0, false};
            return;
        }
        const std::int64_t stride = static_cast<std::int64_t>(lineNumber - e.lastLine);
        e.confirmed = stride != 0 && stride == e.stride;
        e.stride = stride;
        e.lastLine = lineNumber;
        if (!e.confirmed)
            return;
        step = stride;
    }
    const std::uint64_t lines = capacity() >> lineShift_;
    bool waited = false;
    for (unsigned k = 1; k <= config_.prefetchDegree; ++k) {
        const std::int64_t target =
            static_cast<std::int64_t>(lineNumber) + step * static_cast<std::int64_t>(k);
        if (target < 0 || static_cast<std::uint64_t>(target) >= lines)
            break;
        const auto candidate = static_cast<std::uint64_t>(target);
        if (prefetchCandidatePresent(candidate))
            continue;
        // A prefetch never waits: without an MSHR free at its time it is dropped.
        if (mshrs_.start(at, lastHold_) > at) {
            ++prefetchesDropped_;
            break;
        }
        if (!waited) {
            // A prefetch reaches the next level in time order, as a miss does (a hit on a
            // prefetched line, which trains it, does not wait by itself).
            waitUntil(at, initiator);
            waited = true;
            if (prefetchCandidatePresent(candidate))
                continue;
        }
        CacheTags::Victim victim;
        CacheTags::Line& line = tags_.install(candidate, victim);
        ++prefetches_;
        ++fills_;
        const Tick fetched = sendNext(false, candidate << lineShift_, at, initiator);  // first, as a miss's
        const Tick filled = std::max(fetched, evict(victim, at, initiator));
        holdForFill(filled);
        mshrs_.hold(at, filled);
        line.readyAt = filled;
        line.missAt = at;
        line.prefetched = true;
        knownSlots_[candidate % knownSlots_.size()] = KnownSlot{candidate, tags_.slotOfLine(line)};
    }
}

Tick Cache::access(tlm::tlm_generic_payload& gp, AccessExtension* ext, Tick arrival) {
    Tick t = edges_.alignUp(arrival);
    bool write = gp.is_write();
    std::uint64_t addr = gp.get_address(), bytes = gp.get_data_length();
    Tick done = t + hitTicks_;
    const std::uint16_t initiator = ext ? ext->initiator : 0;
    requestSource_ = ext ? ext->source : AccessSource::Engine;
    engineAccess_ = ext && ext->source == AccessSource::Engine ? ext : nullptr;
    engineArrival_ = t;
    const bool storeRate = write && !storeHold_.empty() && requestSource_ == AccessSource::Engine;
    // A line written back from the level above holds the port for write_back_occupancy.
    const Tick lineHold =
        write && requestSource_ == AccessSource::CacheWriteBack ? writeBackTicks_ : portTicks_;
    if (ext && ext->strided()) {
        std::uint64_t last = ~std::uint64_t{0};
        for (std::uint32_t i = 0; i < ext->elements; ++i) {
            std::uint64_t a = addr + static_cast<std::uint64_t>(ext->stride * static_cast<std::int64_t>(i));
            for (std::uint64_t l = a >> lineShift_; l <= (a + ext->elementBytes - 1) >> lineShift_; ++l) {
                if (l == last)
                    continue;
                last = l;
                done = std::max(done, accessLine(l, write, t, initiator, false,
                                                 portHold(storeRate, lineHold, l, a, a + ext->elementBytes)));
            }
        }
        bytes = std::uint64_t{ext->elements} * ext->elementBytes;
    } else if (bytes > 0) {
        // Bounds in locals: the look-ups store through pointers the compiler cannot tell from members.
        const std::uint64_t lineBytes = config_.lineBytes, end = addr + bytes;
        // An engine's store reaches the array `write_granule` bytes at a time: below a line, its
        // first write to a missing line cannot tell that the rest of the line follows.
        const bool wholeWrites = config_.writeGranule >= lineBytes || requestSource_ != AccessSource::Engine;
        const unsigned shift = lineShift_;
        const std::uint64_t lastLine = (end - 1) >> shift;
        for (std::uint64_t l = addr >> shift; l <= lastLine; ++l) {
            const std::uint64_t lineStart = l << shift;
            const bool whole = write && addr <= lineStart && end >= lineStart + lineBytes && wholeWrites;
            done = std::max(
                done, accessLine(l, write, t, initiator, whole, portHold(storeRate, lineHold, l, addr, end)));
        }
    }
    if (write) {
        ++writes_;
        bytesWritten_ += bytes;
    } else {
        storeMissRun_ = 0;  // a read ends write streaming
        ++reads_;
        bytesRead_ += bytes;
    }
    return done;
}

void Cache::debugNext(bool write, std::uint64_t addr, void* data, std::uint64_t bytes) {
    tlm::tlm_generic_payload gp;
    AccessExtension ext;
    ext.space = nextExt_.space;
    gp.set_extension(&ext);
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(static_cast<unsigned>(bytes));
    gp.set_streaming_width(static_cast<unsigned>(bytes));
    unsigned moved = next->transport_dbg(gp);
    gp.clear_extension(&ext);
    if (moved != bytes)
        throw std::runtime_error(
            fmt::format("cache {}: functional {} of {} B at {:#x} failed at the next level", name(),
                        write ? "write" : "read", bytes, addr));
}

void Cache::debugRead(std::uint64_t addr, void* data, std::uint64_t bytes) {
    debugNext(false, addr, data, bytes);
}

void Cache::debugWrite(std::uint64_t addr, const void* data, std::uint64_t bytes) {
    debugNext(true, addr, const_cast<void*>(data), bytes);
}

void Cache::functionalAccess(tlm::tlm_generic_payload& gp, const AccessExtension& ext) {
    unsigned char* data = gp.get_data_ptr();
    bool write = gp.is_write();
    if (!ext.strided()) {
        debugNext(write, gp.get_address(), data, gp.get_data_length());
        return;
    }
    for (std::uint32_t i = 0; i < ext.elements; ++i)
        debugNext(write,
                  gp.get_address() + static_cast<std::uint64_t>(ext.stride * static_cast<std::int64_t>(i)),
                  data + std::size_t{i} * ext.elementBytes, ext.elementBytes);
}

void Cache::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(name());
    std::uint64_t misses = readMisses_ + writeMisses_;
    node.add("reads", reads_, "accesses");
    node.add("writes", writes_, "accesses");
    node.add("bytes_read", bytesRead_, "B");
    node.add("bytes_written", bytesWritten_, "B");
    node.add("line_accesses", lineAccesses_, "lines", "tag look-ups (an access may touch several lines)");
    node.add("hits", hits_, "lines");
    if (config_.prefetcher != CacheConfig::Prefetcher::None) {
        node.add("prefetches", prefetches_, "lines", "lines the prefetcher brought in");
        node.add("prefetch_hits", prefetchHits_, "lines", "prefetched lines later used by a demand access");
        node.add("prefetches_dropped", prefetchesDropped_, "lines",
                 "prefetches dropped for want of a free MSHR");
    }
    if (config_.writeStreaming != 0)
        node.add("streamed_allocations", streamedAllocations_, "lines",
                 "store misses allocated without a fetch in write streaming");
    node.add("misses", misses, "lines");
    node.add("read_misses", readMisses_, "lines");
    node.add("write_misses", writeMisses_, "lines");
    node.add("hit_rate",
             lineAccesses_ ? static_cast<double>(hits_) / static_cast<double>(lineAccesses_) : 0.0, "ratio");
    node.add("evictions", evictions_, "lines", "valid lines replaced");
    node.add("writebacks", writebacks_, "lines", "dirty lines written to the next level");
    node.add("fill_bytes", fills_ * config_.lineBytes, "B", "bytes read from the next level");
    node.add("writeback_bytes", writebacks_ * config_.lineBytes, "B", "bytes written to the next level");
    node.add("dirty_at_end_bytes", writebacksAtEnd_ * config_.lineBytes, "B",
             "of writeback_bytes, the lines still dirty when the run ended, written back then");
    node.add("mshr_full_stalls", mshrStalls_, "misses", "misses that waited for a free MSHR");
    node.add("mshr_stall_time", ticksToSeconds(mshrStallTicks_), "s", "time misses waited for a free MSHR");
    energy.addEvents(name(), "read", reads_, config_.readJoules);
    energy.addEvents(name(), "write", writes_, config_.writeJoules);
    energy.addEvents(name(), "line_fill_or_writeback", fills_ + writebacks_, config_.fillJoules);
    energy.addStaticPower(name(), config_.staticWatts);
    if (config_.areaMm2 > 0)
        energy.addArea(name(), config_.areaMm2);
    (void)seconds;
    collectUntimed(node);
    collectByInitiator(node);
}

}  // namespace tessim
