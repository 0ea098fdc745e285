#include "workloads/tt/TensorTrainShape.h"

#include <algorithm>

namespace tessim {

namespace {
std::uint64_t product(const std::vector<std::uint64_t>& v) {
    std::uint64_t p = 1;
    for (std::uint64_t x : v)
        p *= x;
    return p;
}
}  // namespace

std::uint64_t TtShape::inSize() const {
    return product(in);
}

std::uint64_t TtShape::outSize() const {
    return product(out);
}

std::uint64_t TtShape::parameters() const {
    std::uint64_t p = 0;
    for (unsigned c = 0; c < d(); ++c)
        p += coreElements(c);
    return p;
}

std::vector<TtEinsum> TtShape::einsums(std::uint64_t batch) const {
    std::vector<TtEinsum> chain;
    for (unsigned t = 0; t < d(); ++t) {
        const unsigned c = d() - 1 - t;
        TtEinsum e;
        e.core = c;
        e.m = out[c];
        e.n = in[c];
        e.r = ranks[c];
        e.r1 = ranks[c + 1];
        e.b = batch;
        for (unsigned j = 0; j < c; ++j)
            e.b *= in[j];
        for (unsigned j = c + 1; j < d(); ++j)
            e.b *= out[j];
        chain.push_back(e);
    }
    return chain;
}

std::uint64_t TtShape::flops(std::uint64_t batch) const {
    std::uint64_t f = 0;
    for (const auto& e : einsums(batch))
        f += e.flops();
    return f;
}

std::uint64_t TtShape::largestIntermediate(std::uint64_t batch) const {
    std::uint64_t largest = 0;
    const auto chain = einsums(batch);
    for (std::size_t t = 0; t + 1 < chain.size(); ++t)
        largest = std::max(largest, chain[t].outputElements());
    return largest;
}

std::string listText(const std::vector<std::uint64_t>& values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        s += (i ? "," : "") + std::to_string(values[i]);
    return s + "]";
}

std::string TtShape::describe() const {
    return listText(in) + "x" + listText(out) + " r" + listText(ranks);
}

}  // namespace tessim
