#include "sim/validate/HazardDetector.h"

#include <algorithm>
#include <cstring>
#include <queue>
#include <set>

#include <boost/icl/interval_map.hpp>
#include <fmt/format.h>

namespace tessim {

void HazardDetector::attach(const InitiatorRegistry& initiators, const TargetInfo& target,
                            const std::map<std::string, std::string>& backing) {
    backing_ = backing;
    initiators_.clear();
    for (std::size_t i = 0; i < initiators.size(); ++i)
        initiators_.push_back(initiators.name(static_cast<std::uint16_t>(i)));
    for (const auto& s : target.spaces)
        if (s.level == "ddr")
            offChipNames_.push_back(s.name);
}

bool HazardDetector::offChip(const char* memory) const {
    for (const auto& n : offChipNames_)
        if (n == memory)
            return true;
    return false;
}

const std::string& HazardDetector::initiatorName(std::uint16_t id) const {
    static const std::string unknown = "unknown";
    return id < initiators_.size() ? initiators_[id] : unknown;
}

std::uint32_t HazardDetector::memoryIndex(const char* memory) {
    if (memory == lastMemory_)
        return lastMemoryId_;
    auto it = memoryIds_.find(memory);
    if (it == memoryIds_.end()) {
        it = memoryIds_.emplace(memory, static_cast<std::uint32_t>(memoryNames_.size())).first;
        memoryNames_.push_back(memory);
        windows_.emplace_back();
    }
    lastMemory_ = memory;
    lastMemoryId_ = it->second;
    return it->second;
}

std::uint32_t HazardDetector::engineParty(std::uint16_t initiator) {
    auto it = engineParties_.find(initiator);
    if (it != engineParties_.end())
        return it->second;
    const auto id = static_cast<std::uint32_t>(parties_.size());
    parties_.push_back({initiator, false, 0, initiatorName(initiator), std::string(), 0});
    engineParties_.emplace(initiator, id);
    return id;
}

void HazardDetector::onAccess(const char* memory, const TimedAccess& a) {
    // Caches move lines on someone's behalf: the access that caused them is what counts.
    if (a.source == AccessSource::CacheFill || a.source == AccessSource::CacheWriteBack || a.bytes == 0)
        return;
    std::uint64_t lo = a.addr, hi = a.addr + a.bytes;
    if (a.elementBytes != 0 && a.elements > 0) {  // strided: the span of its elements
        const std::int64_t last = a.stride * static_cast<std::int64_t>(a.elements - 1);
        lo = last < 0 ? a.addr + static_cast<std::uint64_t>(last) : a.addr;
        hi = (last < 0 ? a.addr : a.addr + static_cast<std::uint64_t>(last)) + a.elementBytes;
    }
    if (a.source == AccessSource::DmaBurst) {
        const bool external = offChip(memory);
        if (external && !a.write)
            return;
        const std::uint32_t mem = memoryIndex(memory);
        auto& open = openTransfers_[a.initiator];
        if (!open.empty() && open.back().memory == mem && open.back().write == a.write &&
            open.back().hi == lo)
            open.back().hi = hi;
        else
            open.push_back({mem, a.write, lo, hi, external});
        return;
    }
    // An engine's access through a cache is checked where its bytes live.
    auto b = backing_.find(memory);
    const bool cached = b != backing_.end() && b->second != memory;
    if (!cached && offChip(memory)) {
        if (a.write)
            offChipWrites_[memoryIndex(memory)].push_back({lo, hi, a.arrival,
                                                           std::max(a.completion, a.arrival + 1),
                                                           engineParty(a.initiator), true, a.op});
        return;
    }
    const std::uint32_t mem = memoryIndex(cached ? b->second.c_str() : memory);
    windows_[mem].push_back(
        {lo, hi, a.arrival, std::max(a.completion, a.arrival + 1), engineParty(a.initiator), a.write, a.op});
}

void HazardDetector::onTransferEnd(std::uint16_t initiator, std::uint32_t tag, Tick issued, Tick done,
                                   const OpOrigin& origin) {
    auto it = openTransfers_.find(initiator);
    if (it == openTransfers_.end() || it->second.empty())
        return;
    const auto party = static_cast<std::uint32_t>(parties_.size());
    parties_.push_back({initiator, true, tag, fmt::format("{} (DMA tag {})", initiatorName(initiator), tag),
                        origin.op == kNoOpIndex ? std::string() : initiatorName(origin.engine),
                        origin.op == kNoOpIndex ? issued : origin.issued});
    for (const OpenRange& r : it->second)
        (r.offChip ? offChipWrites_[r.memory] : windows_[r.memory])
            .push_back({r.lo, r.hi, issued, std::max(done, issued + 1), party, r.write, origin.op});
    it->second.clear();
}

std::string HazardDetector::lastWriter(const std::string& memory, std::uint64_t address) const {
    const Window* last = nullptr;
    auto consider = [&](const std::vector<Window>& ws) {
        for (const Window& w : ws)
            if (w.write && w.lo <= address && address < w.hi && (!last || w.end >= last->end))
                last = &w;
    };
    const auto id = memoryIds_.find(memory);
    if (id == memoryIds_.end())
        return std::string();
    consider(windows_[id->second]);  // memoryIndex() gives every id its windows_ entry
    const auto off = offChipWrites_.find(id->second);
    if (off != offChipWrites_.end())
        consider(off->second);
    return last ? describe(*last) : std::string();
}

std::uint64_t HazardDetector::windows() const {
    std::uint64_t n = 0;
    for (const auto& w : windows_)
        n += w.size();
    return n;
}

namespace {

double ns(Tick t) {
    return static_cast<double>(t) / 1000.0;
}

}  // namespace

// "core0 (op 17)", "dma_ch2 (DMA tag 4, started by core0 op 9)": who, and which op of which stream.
std::string HazardDetector::describe(const Window& w) const {
    const Party& p = parties_[w.party];
    if (w.op == kNoOpIndex)
        return p.name;
    if (p.dma)
        return fmt::format("{} (DMA tag {}, started by {} op {})", initiatorName(p.initiator), p.tag,
                           p.starter, w.op);
    return fmt::format("{} (op {})", p.name, w.op);
}

void HazardDetector::onSync(std::uint16_t initiator, SyncKind kind, std::uint32_t tag, Tick arrival,
                            Tick resume) {
    Syncs& s = syncs_[initiator];
    if (kind == SyncKind::DmaWait) {
        s.dmaWaits.push_back({tag, arrival});
        s.waitResumes.push_back(resume);
        return;
    }
    const std::uint64_t object = kind == SyncKind::Barrier ? tag : (std::uint64_t{1} << 32) + tag;
    if (kind != SyncKind::Join)
        s.releases.push_back({object, arrival});
    if (kind != SyncKind::Fork)
        s.acquires.push_back({object, resume});
}

bool HazardDetector::ordered(const Window& first, const Window& second) const {
    const Tick ta = first.begin, tb = second.begin;
    auto a = syncs_.find(parties_[first.party].initiator);
    auto b = syncs_.find(parties_[second.party].initiator);
    if (a == syncs_.end() || b == syncs_.end())
        return false;
    for (const SyncPoint& r : a->second.releases) {
        if (r.time < ta || r.time > tb)
            continue;
        for (const SyncPoint& q : b->second.acquires)
            if (q.object == r.object && q.time >= r.time && q.time <= tb)
                return true;
    }
    return false;
}

bool HazardDetector::waited(const Window& transfer, const Window& access) const {
    auto s = syncs_.find(parties_[access.party].initiator);
    if (s == syncs_.end())
        return false;
    const std::uint32_t tag = parties_[transfer.party].tag;
    // A wait covers the transfers its engine started before it, even those a full descriptor
    // queue took only later.
    const Tick started = parties_[transfer.party].started;
    const auto& waits = s->second.dmaWaits;
    for (std::size_t i = 0; i < waits.size(); ++i)
        if (waits[i].object == tag && waits[i].time >= started && s->second.waitResumes[i] <= access.begin)
            return true;
    // Or another engine waited for the transfer and then released a barrier or fork that the
    // accessing engine acquired before the access (one engine loads a shared buffer, the others
    // pass a barrier). Its wait must have lasted until the transfer ended: a wait on the same tag
    // number of another DMA engine that returned earlier orders nothing.
    for (const auto& [initiator, other] : syncs_) {
        if (initiator == s->first)
            continue;
        for (std::size_t i = 0; i < other.dmaWaits.size(); ++i) {
            const Tick resumed = other.waitResumes[i];
            if (other.dmaWaits[i].object != tag || other.dmaWaits[i].time < started ||
                resumed < transfer.end || resumed > access.begin)
                continue;
            for (const SyncPoint& r : other.releases) {
                if (r.time < resumed || r.time > access.begin)
                    continue;
                for (const SyncPoint& q : s->second.acquires)
                    if (q.object == r.object && q.time >= r.time && q.time <= access.begin)
                        return true;
            }
        }
    }
    return false;
}

void HazardDetector::report(ValidationLog& log, std::uint32_t m, const Window& o, const Window& w) {
    const std::uint64_t lo = std::max(o.lo, w.lo), hi = std::min(o.hi, w.hi);
    ValidationError e;
    const Party& early = parties_[o.party];
    const Party& late = parties_[w.party];
    // Overlapping windows: the second party acts while the first is still at it; otherwise (two
    // engines) it acts later, but nothing makes it wait for the first.
    const bool during = w.begin < o.end;
    const std::string earlyName = describe(o), lateName = describe(w);
    const std::string first =
        during ? fmt::format("while {} is still", earlyName) : fmt::format("after {} was", earlyName);
    std::string what;
    if (o.write && w.write) {
        e.kind = "waw-hazard";
        what = fmt::format("{} writes them {} writing them", lateName, first);
    } else if (o.write) {
        e.kind = "raw-hazard";
        what = fmt::format("{} reads them {} writing them", lateName, first);
    } else {
        e.kind = "war-hazard";
        what = fmt::format("{} overwrites them {} reading them", lateName, first);
    }
    e.engine = late.name;
    e.other = early.name;
    if (w.op != kNoOpIndex) {
        e.opIndex = w.op;
        e.opEngine = late.dma ? late.starter : late.name;
    }
    if (o.op != kNoOpIndex) {
        e.otherOpIndex = o.op;
        e.otherOpEngine = early.dma ? early.starter : early.name;
    }
    e.memory = memoryNames_[m];
    e.address = lo;
    e.bytes = hi - lo;
    e.timeNs = ns(w.begin);
    e.otherTimeNs = ns(o.begin);
    e.message =
        fmt::format("{} [{:#x}, {:#x}) ({} B): {} ({} from {} to {}, {} from {} to {}); nothing orders "
                    "the two (a missing DMA wait, barrier or join?)",
                    e.memory, lo, hi, hi - lo, what, lateName, formatNs(ns(w.begin)), formatNs(ns(w.end)),
                    earlyName, formatNs(ns(o.begin)), formatNs(ns(o.end)));
    const std::string key =
        fmt::format("{}|{}|{}|{}", e.kind, m, initiatorName(early.initiator), initiatorName(late.initiator));
    log.add(std::move(e), key);
}

void HazardDetector::analyse(ValidationLog& log) {
    checkWaitsHaveTransfers(log);
    for (std::uint32_t m = 0; m < windows_.size(); ++m) {
        std::vector<Window>& ws = windows_[m];
        std::stable_sort(ws.begin(), ws.end(),
                         [](const Window& a, const Window& b) { return a.begin < b.begin; });
        sweepDmaOverlaps(log, m);
        checkEnginePairs(log, m);
        checkDmaWaits(log, m);
    }
}

// A DMA transfer and any other party: unordered when their windows overlap in time.
void HazardDetector::sweepDmaOverlaps(ValidationLog& log, std::uint32_t m) {
    using Ids = std::set<std::uint32_t>;
    using Interval = boost::icl::discrete_interval<std::uint64_t>;
    const std::vector<Window>& ws = windows_[m];
    // Sweep in time: `active` holds the byte ranges of windows not yet ended, by window index.
    boost::icl::interval_map<std::uint64_t, Ids> active;
    using Ending = std::pair<Tick, std::uint32_t>;
    std::priority_queue<Ending, std::vector<Ending>, std::greater<>> ends;
    for (std::uint32_t i = 0; i < ws.size(); ++i) {
        const Window& w = ws[i];
        while (!ends.empty() && ends.top().first <= w.begin) {
            const Window& old = ws[ends.top().second];
            active -= std::make_pair(Interval::right_open(old.lo, old.hi), Ids{ends.top().second});
            ends.pop();
        }
        const Interval range = Interval::right_open(w.lo, w.hi);
        auto [first, last] = active.equal_range(range);
        Ids seen;
        for (auto it = first; it != last; ++it)
            for (std::uint32_t j : it->second) {
                const Window& o = ws[j];
                const Party& p = parties_[o.party];
                const Party& q = parties_[w.party];
                if ((!p.dma && !q.dma) || p.initiator == q.initiator || (!o.write && !w.write) ||
                    !seen.insert(j).second)
                    continue;
                report(log, m, o, w);
            }
        active += std::make_pair(range, Ids{i});
        ends.push({w.end, i});
    }
}

// Engines against engines: the last writer and the last reader of every byte, per engine; a new
// access conflicts with another engine's last access of its bytes unless synchronisation orders them.
void HazardDetector::checkEnginePairs(ValidationLog& log, std::uint32_t m) {
    using Interval = boost::icl::discrete_interval<std::uint64_t>;
    using Last = boost::icl::interval_map<std::uint64_t, std::uint32_t>;  // window index + 1
    const std::vector<Window>& ws = windows_[m];
    std::map<std::uint32_t, std::pair<Last, Last>> byParty;  // party → (last write, last read)
    for (const Window& w : ws)
        if (!parties_[w.party].dma)
            byParty[w.party];
    if (byParty.size() < 2)
        return;
    for (std::uint32_t i = 0; i < ws.size(); ++i) {
        const Window& w = ws[i];
        if (parties_[w.party].dma)
            continue;
        const Interval range = Interval::right_open(w.lo, w.hi);
        for (auto& [party, last] : byParty) {
            if (party == w.party)
                continue;
            auto check = [&](const Last& map) {
                auto [first, end] = map.equal_range(range);
                for (auto it = first; it != end; ++it) {
                    const Window& o = ws[it->second - 1];
                    if (!ordered(o, w)) {
                        report(log, m, o, w);
                        return;
                    }
                }
            };
            check(last.first);
            if (w.write)
                check(last.second);
        }
        auto& mine = byParty[w.party];
        (w.write ? mine.first : mine.second).set(std::make_pair(range, i + 1));
    }
}

// A dma_wait on a tag that no transfer of the run carries waits for nothing: the engine goes on as
// if its data had arrived (a wrong tag, or a start that was left out). A wait before the step
// that first fills a buffer is harmless and not reported.
void HazardDetector::checkWaitsHaveTransfers(ValidationLog& log) {
    std::set<std::uint64_t> carried;  // the tags the run's transfers carry, gathered once
    for (const Party& p : parties_)
        if (p.dma)
            carried.insert(p.tag);
    for (const auto& [initiator, s] : syncs_) {
        for (const SyncPoint& wait : s.dmaWaits) {
            if (carried.count(wait.object))
                continue;
            ValidationError e;
            e.kind = "dma-wait";
            e.engine = initiatorName(initiator);
            e.timeNs = ns(wait.time);
            e.message =
                fmt::format("{} waits for DMA tag {} at {}, but no transfer of the run carries that tag: "
                            "the wait orders nothing (a wrong tag, or a missing dma_start?)",
                            e.engine, wait.object, formatNs(ns(wait.time)));
            const std::string key = fmt::format("dma-wait|{}|{}", e.engine, wait.object);
            log.add(std::move(e), key);
        }
    }
}

// Engine accesses after a transfer of the same bytes has ended (overlaps are the sweep's): the last
// transfer that wrote (or read) each byte must have been waited for by the accessing engine.
void HazardDetector::checkDmaWaits(ValidationLog& log, std::uint32_t m) {
    using Interval = boost::icl::discrete_interval<std::uint64_t>;
    using Last = boost::icl::interval_map<std::uint64_t, std::uint32_t>;  // window index + 1
    const std::vector<Window>& ws = windows_[m];
    Last lastWrite, lastRead;
    for (std::uint32_t i = 0; i < ws.size(); ++i) {
        const Window& w = ws[i];
        const Interval range = Interval::right_open(w.lo, w.hi);
        if (parties_[w.party].dma) {
            (w.write ? lastWrite : lastRead).set(std::make_pair(range, i + 1));
            continue;
        }
        auto check = [&](const Last& map) {
            auto [first, end] = map.equal_range(range);
            for (auto it = first; it != end; ++it) {
                const Window& t = ws[it->second - 1];
                if (t.end <= w.begin && !waited(t, w)) {
                    report(log, m, t, w);
                    return;
                }
            }
        };
        check(lastWrite);
        if (w.write)
            check(lastRead);
    }
}

}  // namespace tessim
