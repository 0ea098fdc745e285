#include "sim/workload/BundlePacker.h"

#include <algorithm>
#include <string>

#include "sim/ir/OpTable.h"

namespace tessim {

BundlePacker::BundlePacker(std::unique_ptr<OpStream> inner, const EngineInfo& engine)
    : inner_(std::move(inner)), issueWidth_(std::max(1u, engine.issueWidth)) {
    for (const auto& s : engine.slots)
        slotCounts_.push_back(s.count);
    candidates_.resize(opKindCount());
    for (std::size_t k = 0; k < candidates_.size(); ++k) {
        if (!isKnownOpKind(static_cast<OpKind>(k)))
            continue;
        const std::string timing(timingClassName(opInfo(static_cast<OpKind>(k)).timingClass));
        for (unsigned u = 0; u < engine.units.size(); ++u) {
            if (!engine.units[u].findOp(timing))
                continue;
            int slotClass = -1;
            for (std::size_t s = 0; s < engine.slots.size(); ++s)
                if (engine.slots[s].name == engine.units[u].slotClass)
                    slotClass = static_cast<int>(s);
            candidates_[k].push_back(Candidate{u, slotClass});
        }
    }
    for (const auto& u : engine.units)
        instances_.push_back(u.instances);
    unitsTaken_.assign(instances_.size(), 0);
    slotsTaken_.assign(slotCounts_.size(), 0);
}

void BundlePacker::closeBundle() {
    if (!open_)
        return;
    open_ = false;
    size_ = 0;
    std::fill(unitsTaken_.begin(), unitsTaken_.end(), 0u);
    std::fill(slotsTaken_.begin(), slotsTaken_.end(), 0u);
    read_.fill(false);
    written_.fill(false);
    stored_ = false;
}

void BundlePacker::place(Op& op) {
    const OpDescriptor& info = opInfo(op.kind);
    const auto& candidates = candidates_[static_cast<std::size_t>(op.kind)];
    // The classes the engine bundles (Engine::run); others it issues alone.
    const bool bundled = info.opClass == OpClass::Compute || info.opClass == OpClass::Scalar ||
                         info.opClass == OpClass::Memory;
    if (candidates.empty() || !bundled) {
        // Issued alone by the engine (or refused by it, with its own message).
        closeBundle();
        return;
    }
    const std::uint8_t reads[] = {op.src[0], op.src[1], op.src[2], op.base};
    auto fits = [&] {
        if (!open_ || (slotCounts_.empty() && size_ >= issueWidth_))
            return false;
        for (std::uint8_t r : reads)
            if (r < kRegIds && written_[r])
                return false;
        if (op.dst < kRegIds && (written_[op.dst] || read_[op.dst]))
            return false;
        if (info.memory && stored_)
            return false;
        for (const Candidate& c : candidates)
            if (unitsTaken_[c.unit] < instances_[c.unit] &&
                (c.slotClass < 0 || slotsTaken_[static_cast<std::size_t>(c.slotClass)] <
                                        slotCounts_[static_cast<std::size_t>(c.slotClass)]))
                return true;
        return false;
    };
    if (!fits()) {
        closeBundle();
        open_ = true;
        op.flags |= Op::kBundleStart;
    }
    ++size_;
    // An op that several units execute may take any of them (the engine picks the freest): it
    // counts against each, and against each of their slot classes, so that the ops after it fit
    // whichever it takes. (No allocation: this runs for every op the engine issues.)
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Candidate& c = candidates[i];
        ++unitsTaken_[c.unit];
        bool counted = c.slotClass < 0;
        for (std::size_t j = 0; j < i && !counted; ++j)
            counted = candidates[j].slotClass == c.slotClass;
        if (!counted)
            ++slotsTaken_[static_cast<std::size_t>(c.slotClass)];
    }
    for (std::uint8_t r : reads)
        if (r < kRegIds)
            read_[r] = true;
    if (op.dst < kRegIds)
        written_[op.dst] = true;
    stored_ = stored_ || info.store;
}

std::size_t BundlePacker::nextChunk(const Op*& first) {
    if (pos_ < chunk_.size()) {
        first = &chunk_[pos_];
        const std::size_t n = chunk_.size() - pos_;
        pos_ = chunk_.size();
        return n;
    }
    const Op* ops = nullptr;
    const std::size_t n = inner_->nextChunk(ops);
    if (n == 0)
        return 0;
    chunk_.assign(ops, ops + n);
    for (Op& op : chunk_)
        place(op);
    pos_ = chunk_.size();
    first = chunk_.data();
    return n;
}

const Op* BundlePacker::next() {
    if (pos_ == chunk_.size()) {
        const Op* first = nullptr;
        if (nextChunk(first) == 0)
            return nullptr;
        pos_ = 0;
    }
    return &chunk_[pos_++];
}

std::unique_ptr<OpStream> packForEngine(std::unique_ptr<OpStream> stream, const EngineInfo& engine) {
    if (!engine.vliw)
        return stream;
    return std::make_unique<BundlePacker>(std::move(stream), engine);
}

}  // namespace tessim
