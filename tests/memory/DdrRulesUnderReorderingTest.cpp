// The DDR model's rules between banks hold for every pair of commands it issues when requests
// arrive out of time order (many in flight, arrivals jittered back and forth, reads and writes
// mixed, requests of several bursts): each rank's log of activates and column commands is
// checked pairwise against tRRD_S/L, tFAW, tCCD_S/L, tWTR_S/L and tRTW. Commands placed among
// remembered ones, or before forgotten ones, must never break a rule the closed-form tests check
// only on in-order streams.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Ddr.h"

namespace tessim {
namespace {

using Command = Ddr::Command;

// Ddr with its transport entry reachable: requests are presented at chosen arrival ticks.
struct OpenDdr : Ddr {
    using Ddr::access;
    using Ddr::Ddr;
};

struct Violation {
    std::string rule;
    Command a, b;
};

// Every pair of one rank's commands closer than the longest rule, against the rules.
// Activates and per-bank refreshes: JESD209-4 counts a REFpb as an activate for tRRD and tFAW.
bool activating(const Command& c) {
    return c.kind == Command::Kind::Activate || c.kind == Command::Kind::Refresh;
}

std::vector<Violation> check(const DdrConfig& c, std::vector<Command> log) {
    const Tick p = c.clock.period;
    const Tick rrdS = c.t.tRRD_S * p, rrdL = c.t.tRRD_L * p, faw = c.t.tFAW * p;
    const Tick ccdS = c.t.tCCD_S * p, ccdL = c.t.tCCD_L * p;
    const Tick wtrS = c.t.tWTR_S * p, wtrL = c.t.tWTR_L * p, rtw = c.t.tRTW * p;
    // Without any turnaround key reads and writes are only kept apart on the data bus.
    const bool turnarounds = wtrS != 0 || wtrL != 0 || rtw != 0;
    std::stable_sort(log.begin(), log.end(), [](const Command& x, const Command& y) {
        return x.rank != y.rank ? x.rank < y.rank : x.first < y.first;
    });
    // The longest a command's rules reach past its first column command or activate.
    Tick span = 0;
    for (const Command& x : log)
        span = std::max(span, x.dataEnd - x.first);
    const Tick reach = span + std::max({rrdL, faw, ccdL, wtrL, rtw}) + 1;
    std::vector<Violation> bad;
    auto fail = [&](const char* rule, const Command& x, const Command& y) {
        if (bad.size() < 10)
            bad.push_back(Violation{rule, x, y});
    };
    std::vector<Command> acts;
    for (std::size_t i = 0; i < log.size(); ++i) {
        const Command& x = log[i];
        if (activating(x))
            acts.push_back(x);
        for (std::size_t j = i + 1; j < log.size() && log[j].rank == x.rank && log[j].first < x.first + reach;
             ++j) {
            const Command& y = log[j];  // y.first >= x.first
            const bool sameGroup = x.group == y.group;
            const bool xAct = activating(x), yAct = activating(y);
            if (xAct && yAct) {
                if (y.first - x.first < (sameGroup ? rrdL : rrdS))
                    fail("tRRD", x, y);
            } else if (!xAct && !yAct && (x.kind == y.kind || turnarounds)) {
                if (x.kind == y.kind) {
                    // Two segments of one kind: the later's first command tCCD after the earlier's last.
                    if (y.first < x.last + (sameGroup ? ccdL : ccdS))
                        fail("tCCD", x, y);
                } else if (x.kind == Command::Kind::Read) {
                    if (y.first < x.last + rtw)
                        fail("tRTW", x, y);
                } else if (y.first < x.dataEnd + (sameGroup ? wtrL : wtrS)) {
                    fail("tWTR", x, y);
                }
            }
        }
    }
    // At most four activates of a rank in any tFAW window.
    for (std::size_t i = 0; i + 4 < acts.size(); ++i)
        if (acts[i + 4].rank == acts[i].rank && acts[i + 4].first - acts[i].first < faw)
            fail("tFAW", acts[i], acts[i + 4]);
    return bad;
}

std::string describe(const Violation& v) {
    auto one = [](const Command& c) {
        const char* kind = c.kind == Command::Kind::Activate  ? "ACT"
                           : c.kind == Command::Kind::Refresh ? "REFpb"
                           : c.kind == Command::Kind::Read    ? "RD"
                                                              : "WR";
        return std::string(kind) + " rank " + std::to_string(c.rank) + " group " + std::to_string(c.group) +
               " at " + std::to_string(c.first) + ".." + std::to_string(c.last) + " data end " +
               std::to_string(c.dataEnd);
    };
    return v.rule + ": " + one(v.a) + " then " + one(v.b);
}

std::uint64_t next(std::uint64_t& s) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 17;
}

// `requests` random requests, `inFlight` at a time, each presented when the one it replaces
// completed, moved back or ahead by up to `jitter` ticks one time in four.
std::vector<Command> drive(OpenDdr& ddr, std::uint64_t requests, unsigned inFlight, Tick jitter,
                           unsigned writePct, std::uint64_t seed) {
    std::vector<Command> log;
    ddr.logCommands(&log);
    const std::uint64_t lines = ddr.config().size / 64;
    std::vector<Tick> slots(inFlight, 0);
    tlm::tlm_generic_payload gp;
    for (std::uint64_t i = 0; i < requests; ++i) {
        Tick& slot = slots[i % inFlight];
        const std::uint64_t bytes = next(seed) % 8 == 0 ? 64 * (1 + next(seed) % 8) : 64;
        const std::uint64_t addr = std::min(next(seed) % lines * 64, ddr.config().size - bytes);
        gp.set_command(next(seed) % 100 < writePct ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp.set_address(addr);
        gp.set_data_length(static_cast<unsigned>(bytes));
        Tick arrival = slot;
        switch (next(seed) % 8) {
        case 0: arrival = arrival > jitter ? arrival - next(seed) % jitter : 0; break;
        case 1: arrival += next(seed) % jitter; break;
        default: break;
        }
        slot = ddr.access(gp, nullptr, arrival);
    }
    ddr.completePostedWrites();
    ddr.logCommands(nullptr);
    return log;
}

struct Case {
    const char* name;
    std::string yaml;
    unsigned writePct;
};

class DdrRulesUnderReordering : public ::testing::TestWithParam<Case> {};

TEST_P(DdrRulesUnderReordering, EveryPairOfCommandsKeepsItsDistance) {
    test::freshKernel();
    const DdrConfig c = test::configFrom<DdrConfig>(GetParam().yaml);
    OpenDdr ddr("ddr", c);
    test::elaborate();
    const std::vector<Command> log = drive(ddr, 40000, 64, 200'000, GetParam().writePct, 7);
    std::size_t activates = 0, columns = 0, refreshes = 0;
    for (const Command& x : log)
        (x.kind == Command::Kind::Activate  ? activates
         : x.kind == Command::Kind::Refresh ? refreshes
                                            : columns) += 1;
    if (c.perBankRefresh) {
        EXPECT_GT(refreshes, 0u) << "per-bank refreshes take part in the rules";
    }
    // The checks see real traffic: most requests open a row, and every request issued columns.
    EXPECT_GT(activates, 20000u);
    EXPECT_GE(columns, 40000u);
    for (const Violation& v : check(c, log))
        ADD_FAILURE() << describe(v);
}

INSTANTIATE_TEST_SUITE_P(
    Presets, DdrRulesUnderReordering,
    ::testing::Values(
        Case{"Ddr4ReadsOnly", "preset: ddr4-2400-x64\n", 0}, Case{"Ddr4Mixed", "preset: ddr4-2400-x64\n", 30},
        Case{"Ddr4PostedWrites", "preset: ddr4-3200-x64\nwrite_queue: 16\nrow_history: 4\n", 40},
        Case{"Ddr4LongTrrdL", "preset: ddr4-3200-x64\ntRRD_S: 2\ntRRD_L: 9\ntFAW: 16\n", 20},
        Case{"Ddr4ClosedPageFcfs", "preset: ddr4-2400-x64\npage_policy: closed\nscheduler: fcfs\n", 30},
        Case{"Ddr4DeepRowHistory", "preset: ddr4-2400-x64\nrow_history: 4\nbank_queue: 2\n", 30},
        Case{"Lpddr4xMixed", "preset: lpddr4x-2666-x32\n", 30},
        Case{"Lpddr4TwoChannels",
             "preset: lpddr4-3200-x32\nchannels: 2\nsize: 4 GiB\n"
             "mapping: [row, rank, bank, column, channel]\ninterleave: 256 B\n",
             30},
        Case{"Lpddr4TwoRanksPerBankRefresh",
             "preset: lpddr4-3200-x32\nranks: 2\nsize: 4 GiB\nrefresh: per-bank\n"
             "mapping: [row, rank, bank, column, channel]\n",
             25}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// The checker itself finds a violation: two reads of one bank group closer than tCCD_L.
TEST(DdrRulesUnderReordering, TheCheckerFindsACommandTooClose) {
    const DdrConfig c = test::configFrom<DdrConfig>("preset: ddr4-2400-x64\n");
    const Tick p = c.clock.period;
    const std::vector<Command> log = {
        Command{Command::Kind::Read, 0, 1, 100 * p, 100 * p, 130 * p},
        Command{Command::Kind::Read, 0, 1, (100 + c.t.tCCD_L - 1) * p, (100 + c.t.tCCD_L - 1) * p, 140 * p},
        Command{Command::Kind::Read, 0, 2, 200 * p, 200 * p, 230 * p},
        Command{Command::Kind::Read, 0, 3, (200 + c.t.tCCD_S) * p, (200 + c.t.tCCD_S) * p, 240 * p},
    };
    const std::vector<Violation> bad = check(c, log);
    ASSERT_EQ(bad.size(), 1u);
    EXPECT_EQ(bad[0].rule, "tCCD");
    EXPECT_EQ(bad[0].b.first, (100 + c.t.tCCD_L - 1) * p);
}

}  // namespace
}  // namespace tessim
