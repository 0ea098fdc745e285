#include "models/memory/Memory.h"

#include <algorithm>

#include <fmt/format.h>

namespace tessim {

Memory::Memory(sc_core::sc_module_name name, std::string level, std::uint64_t capacity)
    : sc_core::sc_module(name), socket("socket"), level_(std::move(level)), capacity_(capacity) {
    socket.register_b_transport(this, &Memory::bTransport);
    socket.register_transport_dbg(this, &Memory::transportDbg);
}

bool Memory::inRange(const tlm::tlm_generic_payload& gp, const AccessExtension* ext) const {
    std::uint64_t first = gp.get_address();
    std::uint64_t span = gp.get_data_length();
    if (ext && ext->strided() && ext->elements > 0) {
        std::int64_t lastOffset = ext->stride * static_cast<std::int64_t>(ext->elements - 1);
        if (lastOffset < 0) {
            if (static_cast<std::uint64_t>(-lastOffset) > first)
                return false;
            first -= static_cast<std::uint64_t>(-lastOffset);
            span = static_cast<std::uint64_t>(-lastOffset) + ext->elementBytes;
        } else {
            span = static_cast<std::uint64_t>(lastOffset) + ext->elementBytes;
        }
    }
    return first <= capacity_ && span <= capacity_ - first;
}

void Memory::debugRead(std::uint64_t addr, void* data, std::uint64_t bytes) {
    store_.read(addr, data, bytes);
}

void Memory::debugWrite(std::uint64_t addr, const void* data, std::uint64_t bytes) {
    store_.write(addr, data, bytes);
}

void Memory::functionalAccess(tlm::tlm_generic_payload& gp, const AccessExtension& ext) {
    if (gp.is_read()) {
        if (ext.strided())
            store_.readStrided(gp.get_address(), ext.stride, ext.elementBytes, ext.elements,
                               gp.get_data_ptr());
        else
            store_.read(gp.get_address(), gp.get_data_ptr(), gp.get_data_length());
    } else {
        if (ext.strided())
            store_.writeStrided(gp.get_address(), ext.stride, ext.elementBytes, ext.elements,
                                gp.get_data_ptr());
        else
            store_.write(gp.get_address(), gp.get_data_ptr(), gp.get_data_length());
    }
}

void Memory::bTransport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    AccessExtension* ext = gp.get_extension<AccessExtension>();
    if (!inRange(gp, ext)) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const Tick now = nowTicks();
    const std::uint64_t waitsBefore = waitsInTransport_;
    now_ = now;
    nowWaits_ = waitsBefore;
    const Tick arrival = now + delay.value();
    accessWait_ = 0;
    accessBusBytes_ = 0;
    Tick done = access(gp, ext, arrival);
    if (ext && ext->functional && gp.get_data_ptr())
        functionalAccess(gp, *ext);
    const bool write = gp.is_write();
    const std::uint64_t bytes =
        ext && ext->strided() ? std::uint64_t{ext->elements} * ext->elementBytes : gp.get_data_length();
    const std::uint16_t who = ext ? ext->initiator : 0;
    if (who >= byInitiator_.size())
        byInitiator_.resize(std::size_t{who} + 1);
    InitiatorTraffic& t = byInitiator_[who];
    const std::uint64_t moved = accessBusBytes_ ? accessBusBytes_ : bytes;  // as traffic_bytes counts
    if (write) {
        ++t.writes;
        t.bytesWritten += moved;
    } else {
        ++t.reads;
        t.bytesRead += moved;
    }
    t.waitTicks += accessWait_;
    // A MAC array's operand accesses reach observers from the engine, as one access per operand
    // over the tile's whole run (what hazard checks compare DMA transfers with).
    if (observer_ && !(ext && ext->source == AccessSource::MacOperand)) {
        TimedAccess a;
        a.initiator = who;
        a.space = ext ? ext->space : 0;
        a.source = ext ? ext->source : AccessSource::Engine;
        a.write = write;
        a.addr = gp.get_address();
        a.bytes = bytes;
        if (ext && ext->strided()) {
            a.elementBytes = ext->elementBytes;
            a.elements = ext->elements;
            a.stride = ext->stride;
        }
        a.arrival = arrival;
        a.completion = std::max(done, arrival);
        a.wait = accessWait_;
        a.op = ext ? ext->op : kNoOpIndex;
        observer_->onAccess(name(), a);
    }
    // A memory may have waited for simulated time to reach the request (a cache with a miss look-ahead).
    const Tick after = waitsInTransport_ == waitsBefore ? now : nowTicks();
    delay = sc_core::sc_time::from_value(done > after ? done - after : 0);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Memory::collectByInitiator(StatsTree& node) const {
    if (!registry_)
        return;
    for (std::size_t id = 0; id < byInitiator_.size(); ++id) {
        const InitiatorTraffic& t = byInitiator_[id];
        if (t.reads + t.writes == 0)
            continue;
        auto& n = node.child("by_initiator").child(registry_->name(static_cast<std::uint16_t>(id)));
        n.add("reads", t.reads, "accesses");
        n.add("writes", t.writes, "accesses");
        n.add("bytes_read", t.bytesRead, "B");
        n.add("bytes_written", t.bytesWritten, "B");
        n.add("wait_time", ticksToSeconds(t.waitTicks), "s",
              "time beyond the unloaded latency spent queueing behind other requests");
    }
}

unsigned Memory::transportDbg(int, tlm::tlm_generic_payload& gp) {
    if (!inRange(gp, nullptr))
        return 0;
    if (gp.is_read())
        debugRead(gp.get_address(), gp.get_data_ptr(), gp.get_data_length());
    else
        debugWrite(gp.get_address(), gp.get_data_ptr(), gp.get_data_length());
    return gp.get_data_length();
}

void Memory::collectUntimed(StatsTree& node) const {
    if (untimedRead_ == 0 && untimedWritten_ == 0)
        return;
    node.add("untimed_bytes_read", untimedRead_, "B", "moved by an ideal interface, no access simulated");
    node.add("untimed_bytes_written", untimedWritten_, "B",
             "moved by an ideal interface, no access simulated");
}

}  // namespace tessim
