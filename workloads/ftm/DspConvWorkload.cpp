#include "workloads/ftm/DspConvWorkload.h"
#include "workloads/common/FlopStats.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/ir/ElementArithmetic.h"
#include "workloads/common/TestData.h"

namespace tessim {

void DspConvWorkload::deriveWorkload(nlohmann::ordered_json& workload) const {
    const nlohmann::ordered_json shape = resolvedConvWorkload(problem_);
    for (auto it = shape.begin(); it != shape.end(); ++it)
        workload[it.key()] = it.value();
}

std::map<std::string, std::uint64_t> DspConvWorkload::compulsoryBytes() const {
    const DspConvProblem& p = problem_;
    const std::uint64_t in = p.inputElements() * p.elem;
    const std::uint64_t w = std::uint64_t{p.filters} * p.coefficientsPerFilter() * p.elem;
    const std::uint64_t out = std::uint64_t{p.filters} * p.ho * p.wo * p.elem;
    return {{"ddr", in + w + out}};
}

double DspConvWorkload::overlappedEstimate(double loopCycles, double extraDdrBytes) const {
    const DspConvProblem& p = problem_;
    double ddrBytes = extraDdrBytes;
    for (const auto& [level, bytes] : compulsoryBytes())
        ddrBytes += static_cast<double>(bytes);
    const double ddr = p.ddrBytesPerSecond > 0 ? ddrBytes / p.ddrBytesPerSecond : 0.0;
    return std::max(loopCycles / p.clockHz, ddr);
}

void DspConvWorkload::initialise(FunctionalMemory& memory) {
    write(memory, problem_.ddrIn, problem_.inputElements(), 0);
    write(memory, problem_.ddrW, std::uint64_t{problem_.filters} * problem_.coefficientsPerFilter(), 1);
}

FunctionalCheck DspConvWorkload::check(FunctionalMemory& memory) {
    const DspConvProblem& p = problem_;
    FunctionalCheck c;
    c.checked = true;
    std::vector<std::uint8_t> row(std::uint64_t{p.wo} * p.elem);
    for (std::uint32_t f = 0; f < p.filters; ++f)
        for (std::uint32_t r = 0; r < p.ho; ++r) {
            memory.read(p.ddr, p.ddrOut + (std::uint64_t{f} * p.ho + r) * row.size(), row.data(), row.size());
            for (std::uint32_t o = 0; o < p.wo; ++o) {
                const double got = decodeElement(p.dtype, row.data() + std::uint64_t{o} * p.elem);
                const double want = reference(f, r, o);
                if (c.countOutput(got, want, got != want)) {
                    c.firstMismatch =
                        fmt::format("out[{}][{}][{}]: simulated {} reference {}", f, r, o, got, want);
                    c.locateFirstMismatch(p.ddr, p.ddrOut + (std::uint64_t{f} * p.ho + r) * row.size() +
                                                     std::uint64_t{o} * p.elem);
                }
            }
        }
    return c;
}

void DspConvWorkload::addThroughputStats(StatsTree& stats, std::uint64_t cycles, double seconds,
                                         unsigned fmacs, unsigned lanes) const {
    const double macs = static_cast<double>(problem_.macs());
    addFlopStats(stats, static_cast<std::uint64_t>(2.0 * macs), "2 · outputs · filters · K²", cycles, seconds,
                 false);
    auto& node = stats.child("workload");
    const double lanesPerCycle = static_cast<double>(problem_.cores()) * fmacs * lanes;
    node.add("fmac_utilisation", cycles ? macs / (lanesPerCycle * static_cast<double>(cycles)) : 0.0, "",
             "MACs / (cores · FMACs · lanes · cycles)");
}

void DspConvWorkload::addLoopStats(StatsTree& stats, const ModuloSchedule& schedule, unsigned unroll,
                                   double fmas, unsigned fmacs, const LoopNotes& notes) const {
    auto& node = stats.child("workload");
    node.add("ii_achieved", std::uint64_t{schedule.ii}, "cycles", notes.ii);
    node.add("ii_resource_bound", std::uint64_t{schedule.resourceBound}, "cycles", notes.resourceBound);
    node.add("ii_recurrence_bound", std::uint64_t{schedule.recurrenceBound}, "cycles", notes.recurrenceBound);
    node.add("unroll", std::uint64_t{unroll}, "chunks", "output vectors per loop iteration");
    node.add("loop_fmac_utilisation", fmas / (static_cast<double>(fmacs) * schedule.ii), "",
             "FMAs per iteration / (FMACs · II)");
}

double DspConvWorkload::input(std::uint64_t c, std::uint64_t y, std::uint64_t x) const {
    const DspConvProblem& p = problem_;
    if (y < p.padH || y >= p.padH + p.h || x < p.padW || x >= p.padW + p.w)
        return 0.0;
    return testValue(p.dtype, (c * p.h + y - p.padH) * p.w + x - p.padW, 0);
}

double DspConvWorkload::reference(std::uint32_t f, std::uint32_t r, std::uint32_t o) const {
    const DspConvProblem& p = problem_;
    double acc = 0.0;
    for (std::uint64_t e = 0; e < p.coefficientsPerFilter(); ++e) {
        const std::uint64_t c = e / p.taps(), ky = e / p.kw % p.kh, kx = e % p.kw;
        const double x = input(c, std::uint64_t{r} * p.sh + ky, std::uint64_t{o} * p.sw + kx);
        const double weight = testValue(p.dtype, f * p.coefficientsPerFilter() + e, 1);
        acc = e == 0 ? mulIn(p.dtype, x, weight) : fmaIn(p.dtype, x, weight, acc);
    }
    return acc;
}

void DspConvWorkload::write(FunctionalMemory& memory, std::uint64_t addr, std::uint64_t count,
                            std::uint64_t salt) const {
    std::vector<std::uint8_t> buf(count * problem_.elem);
    for (std::uint64_t i = 0; i < count; ++i)
        encodeElement(problem_.dtype, testValue(problem_.dtype, i, salt), buf.data() + i * problem_.elem);
    memory.write(problem_.ddr, addr, buf.data(), buf.size());
}

}  // namespace tessim
