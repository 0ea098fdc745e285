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
    // Bank groups (DDR4): column commands and activates within one group are further apart
    // (_L) than across groups (_S). Without bank groups both equal the _S value.
    std::uint64_t tCCD_S = 0;  // column to column (default: one burst, which the bus enforces)
    std::uint64_t tCCD_L = 0;
    std::uint64_t tRRD_S = 0;  // activate to activate in one rank
    std::uint64_t tRRD_L = 0;
    std::uint64_t tFAW = 0;    // at most four activates per rank in any tFAW window; 0: none
    std::uint64_t tWTR_S = 0;  // end of write data to a read command
    std::uint64_t tWTR_L = 0;
    std::uint64_t tRTW = 0;     // read command to write command (bus turnaround)
    std::uint64_t tDQSCK = 0;   // read data arrives tCL + tDQSCK after the command (LPDDR4)
    std::uint64_t tRPab = 0;    // precharge of all banks before an all-bank refresh
    std::uint64_t tRFCpb = 0;   // per-bank refresh duration
    std::uint64_t tREFIpb = 0;  // per-bank refresh interval (one bank's refresh to the next bank's)
};

// The address map as bit lists: each field takes the listed address bits, its least significant
// bit first; bits below the burst size are the byte offset in a burst.
struct DdrBitMap {
    std::vector<unsigned> channel, rank, bank, row, column;
    // Address bits XORed into the bank bits, one per bank bit, or several groups of that many
    // XORed together (empty: none).
    std::vector<unsigned> bankXor;
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
    unsigned bankGroups = 1;  // per rank; the group of a bank is bank mod bank_groups
    // Command-bus cycles of a read or write command (LPDDR4: 4, READ-1/WRITE-1 + CAS-2); read and
    // write latency count from its last cycle.
    unsigned columnCycles = 1;
    bool perBankRefresh = false;    // tRFCpb every tREFIpb, bank by bank, instead of all-bank
    unsigned bankQueue = 0;         // requests waiting per bank before the requester stalls; 0: no bound
    std::vector<DdrField> mapping;  // most significant field first
    bool bitMapped = false;         // `mapping` given as bit lists (bits), not as a field order
    // Field-order mapping: each bank bit XORed with the row's bits folded by the bank's width
    // (`bank_hash: xor-row`), so rows that share a bank under the plain map spread over the banks.
    bool bankHashRow = false;
    DdrBitMap bits;
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
    double refreshJoules = 0.0;  // one all-bank refresh of one rank (a per-bank one: 1 / banks of it)
    double backgroundWatts = 0.0;

    static DdrConfig fromYaml(config::Reader& r, const std::string& name);

    std::uint64_t burstBytes() const { return std::uint64_t{busBits} / 8 * burstLength; }
    // A burst occupies the data bus for BL/2 clock cycles (double data rate).
    std::uint64_t burstCycles() const { return burstLength / 2; }
    std::uint64_t rows() const { return size / (std::uint64_t{channels} * ranks * banks * rowBytes); }
    double peakBandwidth() const { return static_cast<double>(channels) * busBits / 8.0 * 2.0 * clock.hz(); }
    unsigned bankGroupOf(unsigned bank) const { return bank % bankGroups; }
    // A refresh blocks its rank (all-bank) or bank (per-bank) for this long, every refreshPeriod.
    std::uint64_t refreshBlockCycles() const { return perBankRefresh ? t.tRP + t.tRFCpb : t.tRPab + t.tRFC; }
    std::uint64_t refreshPeriodCycles() const { return perBankRefresh ? t.tREFIpb * banks : t.tREFI; }
    // Fraction of time a rank (all-bank) or a bank (per-bank) is refreshing.
    double refreshOverhead() const {
        const std::uint64_t period = refreshPeriodCycles();
        return period ? static_cast<double>(refreshBlockCycles()) / static_cast<double>(period) : 0.0;
    }
};

}  // namespace tessim
