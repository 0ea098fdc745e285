// A DDR device configuration: organisation, timing in memory-clock cycles, address mapping,
// controller policy and energy. Parameter sets for LPDDR4/4X and DDR4 speed grades live in
// configs/memory/*.yaml and are named by `preset:`; keys written next to `preset:` override the
// set's values (so `--set` works on every parameter).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/Reader.h"
#include "sim/core/Time.h"

namespace tessim {

enum class DdrField : std::uint8_t { Channel, Rank, Bank, Row, Column };

struct DdrTiming {            // memory-clock cycles
    std::uint64_t tCL = 0;    // read command to first data
    std::uint64_t tCWL = 0;   // write command to first data
    std::uint64_t tRCD = 0;   // activate to column command
    std::uint64_t tRP = 0;    // precharge to activate
    std::uint64_t tRAS = 0;   // activate to precharge
    std::uint64_t tRTP = 0;   // read to precharge
    std::uint64_t tWR = 0;    // end of write data to precharge
    std::uint64_t tRFC = 0;   // refresh (all banks of a rank) duration
    std::uint64_t tREFI = 0;  // refresh interval; 0 disables refresh
};

struct DdrConfig {
    std::string level = "ddr";
    std::string standard;  // informational: "LPDDR4X-2666"
    std::uint64_t size = 0;
    unsigned channels = 1;
    unsigned ranks = 1;
    unsigned banks = 8;             // per rank
    std::uint64_t rowBytes = 2048;  // page size of one channel
    unsigned busBits = 16;          // data bus width of one channel
    unsigned burstLength = 16;      // transfers per burst
    ClockDomain clock;              // command clock; data moves on both edges
    DdrTiming t;
    std::vector<DdrField> mapping;  // most significant field first
    std::uint64_t interleave = 64;  // bytes mapped contiguously before the lowest field advances
    bool openPage = true;
    bool frfcfs = true;
    // Row epochs remembered per bank for requests that arrive out of time order (initiators run
    // ahead of each other): 1 = the last row switch only; more lets an early request be served
    // as a row hit in, or a new row opened between, epochs that later requests created.
    unsigned rowHistory = 1;
    unsigned writeQueue = 32;     // posted writes buffered before a drain; 0 = none
    double activateJoules = 0.0;  // one activate + its precharge
    double readBurstJoules = 0.0;
    double writeBurstJoules = 0.0;
    double refreshJoules = 0.0;  // one all-bank refresh of one rank
    double backgroundWatts = 0.0;

    static DdrConfig fromYaml(config::Reader& r, const std::string& name);

    std::uint64_t burstBytes() const { return std::uint64_t{busBits} / 8 * burstLength; }
    // A burst occupies the data bus for BL/2 clock cycles (double data rate).
    std::uint64_t burstCycles() const { return burstLength / 2; }
    std::uint64_t rows() const { return size / (std::uint64_t{channels} * ranks * banks * rowBytes); }
    double peakBandwidth() const { return static_cast<double>(channels) * busBits / 8.0 * 2.0 * clock.hz(); }
    // Fraction of time a rank is refreshing.
    double refreshOverhead() const {
        return t.tREFI ? static_cast<double>(t.tRFC) / static_cast<double>(t.tREFI) : 0.0;
    }
};

}  // namespace tessim
