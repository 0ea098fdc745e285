// Modulo scheduling of a loop body for a VLIW engine: every op uses one instance of a resource
// (a unit) and one slot of its bundle class for one cycle; dependences carry a latency and an
// iteration distance. The scheduler finds the smallest initiation interval II ≥ max(resource
// bound, recurrence bound) at which every op gets a start cycle in the flat schedule (iteration i
// issues op j at cycle i·II + start[j]) with no resource over-subscribed in any cycle modulo II.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessim {

struct ModuloDependence {
    unsigned from = 0;      // producer op (index in the body)
    unsigned latency = 0;   // cycles from the producer's issue until the consumer may issue
    unsigned distance = 0;  // iterations between producer and consumer (0: same iteration)
};

struct ModuloOp {
    unsigned resource = 0;  // index into ModuloResources::capacity (a unit)
    unsigned slot = 0;      // index into ModuloResources::slotCapacity (a bundle slot class)
    std::vector<ModuloDependence> after;
};

struct ModuloResources {
    std::vector<unsigned> capacity;      // instances per unit
    std::vector<unsigned> slotCapacity;  // ops per bundle per slot class
};

struct ModuloSchedule {
    unsigned ii = 0;               // achieved initiation interval (cycles)
    unsigned resourceBound = 0;    // ⌈uses / capacity⌉ over units and slot classes
    unsigned recurrenceBound = 0;  // max over dependence cycles of ⌈latency / distance⌉
    std::vector<unsigned> start;   // issue cycle of each op within an iteration
    unsigned length = 0;           // max start + 1: cycles one iteration spans
};

// Ops are given in an order where every distance-0 producer precedes its consumers.
ModuloSchedule moduloSchedule(const std::vector<ModuloOp>& body, const ModuloResources& resources);

}  // namespace tessim
