// `tessim probe cache --curves`: the cache hierarchy as a core sees it, as lmbench draws it on a
// board. Load-to-use latency against working-set size (lat_mem_rd: the `pointer_chase` kernel on
// core0) and read / write / copy bandwidth against size (bw_mem: the `memread`, `memset` and
// `memcpy` kernels, unit-stride vle32/vse32 at LMUL 8, on cores 0…N−1). Each figure is of warm
// passes: a run of 2m passes less a run of m (m ≥ 2, measuredPasses), so the first, cold pass,
// whose misses loads leave in flight past its end, and the run's fixed costs (fork, barrier,
// drain) cancel. Every run is a child process (one SystemC elaboration each).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

struct CacheCurveRequest {
    std::string target;             // name or YAML path
    std::vector<std::string> sets;  // --set overrides, passed to every run
    std::uint64_t minBytes = 1024;
    std::uint64_t maxBytes = std::uint64_t{64} << 20;
    unsigned threads = 1;    // bandwidth also with this many threads when > 1
    unsigned jobs = 2;       // runs at a time
    std::string executable;  // the tessim binary the runs use
};

// min, 2·min, … up to max. Throws std::runtime_error unless both are powers of two, min ≤ max.
std::vector<std::uint64_t> powerOfTwoSizes(std::uint64_t minBytes, std::uint64_t maxBytes);

// m: passes of `bytes` split over `threads` (at least 2, and at least 256 KiB per thread).
unsigned measuredPasses(std::uint64_t bytes, unsigned threads);

// Runs every point and returns the tessim.probe.cache/1 object.
nlohmann::ordered_json probeCacheCurves(const CacheCurveRequest& request);

}  // namespace tessim
