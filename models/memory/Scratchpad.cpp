#include "models/memory/Scratchpad.h"

#include <algorithm>

#include "models/memory/CycleParameter.h"
#include "sim/energy/SramArrayModel.h"

namespace tessim {

ScratchpadConfig ScratchpadConfig::fromYaml(config::Reader& r, const std::string& name) {
    using namespace config;
    ScratchpadConfig c;
    c.level = r.get<std::string>("level", name);
    c.size = r.get<Bytes>("size", Range<Bytes>{Bytes{1}, Bytes{~0ULL}}).value;
    c.banks = r.get<unsigned>("banks", 1u, Range<unsigned>{1, 4096});
    c.bankWidth = static_cast<unsigned>(
        r.get<Bytes>("bank_width", Bytes{8}, Range<Bytes>{Bytes{1}, Bytes{4096}}).value);
    c.ports = r.get<unsigned>("ports", 1u, Range<unsigned>{1, 64});
    c.clock =
        ClockDomain::fromHz(r.get<Frequency>("clock", Range<Frequency>{Frequency{1e3}, Frequency{1e11}}).hz);
    c.latencyCycles = readCycles(r, "latency", c.clock, 1);
    if (c.latencyCycles < 1)
        r.fail("latency", "an access takes at least one cycle");
    if (c.size % (std::uint64_t{c.banks} * c.bankWidth) != 0)
        r.fail("size", "size must be a multiple of banks × bank_width");
    SramArrayCost array;  // from the SRAM array model when the energy section names one
    if (auto e = r.optionalChild("energy")) {
        if (auto a = e->optionalChild("array"))
            array = SramArrayModel::fromYaml(*a).cost({c.size, c.banks, c.bankWidth, c.ports});
        c.readJoulesPerWord = e->get<Energy>("read", Energy{array.readJoules}).joules;
        c.writeJoulesPerWord =
            e->get<Energy>("write", Energy{e->has("read") ? c.readJoulesPerWord : array.writeJoules}).joules;
    }
    c.staticWatts = r.get<Power>("static_power", Power{array.staticWatts}).watts;
    c.areaMm2 = array.areaMm2;
    return c;
}

Scratchpad::Scratchpad(sc_core::sc_module_name name, const ScratchpadConfig& config)
    : Memory(name, config.level, config.size), config_(config), ports_(config.ports),
      bankWords_(config.banks, 0), bankLastWord_(config.banks, ~std::uint64_t{0}) {}

void Scratchpad::resetTiming() {
    Memory::resetTiming();
    for (auto& p : ports_)
        p = ReservationTimeline{};
    othersPorts_.clear();
    arrayShares_ = false;
    reads_ = writes_ = wordsRead_ = wordsWritten_ = operandWordsRead_ = operandWordsWritten_ = 0;
    conflictCycles_ = conflictedAccesses_ = busyCycles_ = 0;
}

BankFootprint Scratchpad::footprint(std::uint64_t addr, std::uint64_t bytes, const AccessExtension* ext) {
    const std::uint64_t width = config_.bankWidth, banks = config_.banks;
    BankFootprint f;
    if (!ext || !ext->strided()) {
        if (bytes == 0)
            return f;
        // A contiguous run of W words spreads evenly: the busiest bank holds ceil(W / banks).
        f.words = (addr + bytes - 1) / width - addr / width + 1;
        f.cycles = f.idealCycles = (f.words + banks - 1) / banks;
        return f;
    }
    // Strided (multi-lane) access: count distinct words per bank; lanes that share a word are
    // served by one bank access.
    std::fill(bankWords_.begin(), bankWords_.end(), 0);
    std::fill(bankLastWord_.begin(), bankLastWord_.end(), ~std::uint64_t{0});
    for (std::uint32_t i = 0; i < ext->elements; ++i) {
        std::uint64_t a = addr + static_cast<std::uint64_t>(ext->stride * static_cast<std::int64_t>(i));
        std::uint64_t first = a / width, last = (a + ext->elementBytes - 1) / width;
        for (std::uint64_t w = first; w <= last; ++w) {
            std::uint64_t b = w % banks;
            if (bankLastWord_[b] == w)
                continue;
            bankLastWord_[b] = w;
            ++bankWords_[b];
            ++f.words;
        }
    }
    f.cycles = *std::max_element(bankWords_.begin(), bankWords_.end());
    f.idealCycles = (f.words + banks - 1) / banks;
    return f;
}

Tick Scratchpad::access(tlm::tlm_generic_payload& gp, AccessExtension* ext, Tick arrival) {
    const Tick period = config_.clock.period;
    BankFootprint f = footprint(gp.get_address(), gp.get_data_length(), ext);
    std::uint64_t cycles = std::max<std::uint64_t>(f.cycles, 1);
    Tick t = alignUp(arrival, period);
    // A MAC array's operand streams yield to every other initiator (an arbiter that serves the
    // DMA's few bursts first): they queue behind all reservations, the others only behind each
    // other's. The array reserves a tile's streams when the tile starts, before the DMA bursts
    // of the same time arrive, so without this they would find the ports taken.
    const bool operands = ext && ext->source == AccessSource::MacOperand;
    if (operands && !arrayShares_) {
        arrayShares_ = true;
        othersPorts_ = ports_;
    }
    std::vector<ReservationTimeline>& timelines = arrayShares_ && !operands ? othersPorts_ : ports_;
    // The port that can start first serves the access.
    std::size_t best = 0;
    Tick bestStart = kTickMax;
    for (std::size_t p = 0; p < timelines.size(); ++p) {
        Tick s = timelines[p].earliestStart(t, cycles * period);
        if (s < bestStart) {
            bestStart = s;
            best = p;
        }
    }
    Tick start = timelines[best].reserve(t, cycles * period);
    if (&timelines != &ports_)  // later operand streams queue behind it
        ports_[best].reserve(start, cycles * period);
    busyCycles_ += cycles;
    std::uint64_t conflict = f.conflictCycles();
    if (conflict > 0) {
        conflictCycles_ += conflict;
        ++conflictedAccesses_;
    }
    if (ext)
        ext->conflictTicks = conflict * period;
    noteWait(start - t + conflict * period);
    std::uint64_t bytes = gp.get_data_length();
    // A MAC array's operand streams are counted apart from other words (same energy per word).
    if (gp.is_read()) {
        ++reads_;
        (operands ? operandWordsRead_ : wordsRead_) += f.words;
        bytesRead_ += bytes;
    } else {
        ++writes_;
        (operands ? operandWordsWritten_ : wordsWritten_) += f.words;
        bytesWritten_ += bytes;
    }
    return start + (config_.latencyCycles + cycles - 1) * period;
}

void Scratchpad::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(name());
    node.add("reads", reads_, "accesses");
    node.add("writes", writes_, "accesses");
    node.add("bytes_read", bytesRead_, "B");
    node.add("bytes_written", bytesWritten_, "B");
    node.add("bank_words_read", wordsRead_, "words", "bank-word reads (energy events)");
    node.add("bank_words_written", wordsWritten_, "words", "bank-word writes (energy events)");
    if (operandWordsRead_ + operandWordsWritten_ > 0) {
        node.add("operand_words_read", operandWordsRead_, "words", "bank-word reads of MAC-array operands");
        node.add("operand_words_written", operandWordsWritten_, "words",
                 "bank-word writes of MAC-array results");
    }
    node.add("bank_conflict_cycles", conflictCycles_, "cycles", "cycles lost to bank conflicts");
    node.add("bank_conflicted_accesses", conflictedAccesses_, "accesses",
             "accesses with at least one conflict");
    double busy = ticksToSeconds(config_.clock.at(busyCycles_));
    node.add("busy", busy, "s", "port-cycles spent serving accesses");
    // The DMA's bursts served ahead of an array's streams may overlap them by a few cycles.
    node.add("utilisation", seconds > 0 ? std::min(1.0, busy / (seconds * config_.ports)) : 0.0, "ratio");
    energy.addEvents(name(), "read_word", wordsRead_, config_.readJoulesPerWord);
    energy.addEvents(name(), "write_word", wordsWritten_, config_.writeJoulesPerWord);
    if (operandWordsRead_ + operandWordsWritten_ > 0) {
        energy.addEvents(name(), "operand_read_word", operandWordsRead_, config_.readJoulesPerWord);
        energy.addEvents(name(), "result_write_word", operandWordsWritten_, config_.writeJoulesPerWord);
    }
    energy.addStaticPower(name(), config_.staticWatts);
    if (config_.areaMm2 > 0)
        energy.addArea(name(), config_.areaMm2);
    collectUntimed(node);
    collectByInitiator(node);
}

}  // namespace tessim
