#include "sim/config/Quantity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

namespace tessim::config {
namespace {

using ::testing::HasSubstr;

template <class Q, class Parse> std::string rejectionOf(Parse parse, const std::string& text) {
    std::string why;
    const std::optional<Q> value = parse(text, &why);
    EXPECT_FALSE(value.has_value()) << "'" << text << "' was accepted";
    EXPECT_FALSE(why.empty()) << "no reason for '" << text << "'";
    return why;
}

TEST(QuantityTest, BytesAcceptsEveryUnitWithAndWithoutSpace) {
    const std::vector<std::pair<std::string, uint64_t>> cases{
        {"1 B", 1},
        {"1B", 1},
        {"512 KiB", 512 * 1024},
        {"512KiB", 512 * 1024},
        {"3 MiB", 3ull << 20},
        {"3MiB", 3ull << 20},
        {"2 GiB", 2ull << 30},
        {"2GiB", 2ull << 30},
        {"2 KB", 2000},
        {"2KB", 2000},
        {"7 MB", 7000000},
        {"7MB", 7000000},
        {"4 GB", 4000000000ull},
        {"4GB", 4000000000ull},
        {"0 B", 0},
        {"1.5 MiB", 1572864},
        {"1.5MiB", 1572864},
        {"0.5 KiB", 512},
        {"1.25 KB", 1250},
        {"1e3 B", 1000},
        {"  64 B  ", 64},
        {"18446744073709551615 B", 18446744073709551615ull},
        {"16 GiB", 16ull << 30},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        std::string why;
        const std::optional<Bytes> value = parseBytes(text, &why);
        ASSERT_TRUE(value.has_value()) << why;
        EXPECT_EQ(value->value, expected);
    }
}

TEST(QuantityTest, BytesMissingUnitNamesTheFamilyAndAnExample) {
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "512"), "expected a size with a unit, like 512 KiB");
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "0"), "expected a size with a unit, like 512 KiB");
}

TEST(QuantityTest, BytesRejectsWrongFamilyUnits) {
    for (const std::string text : {"12 ns", "1 GHz", "3 GB/s", "2 pJ", "4 mW", "1 s"}) {
        SCOPED_TRACE(text);
        const std::string why = rejectionOf<Bytes>(parseBytes, text);
        EXPECT_THAT(why, HasSubstr("expected a size with a unit"));
        EXPECT_THAT(why, HasSubstr("like 512 KiB"));
    }
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "12 ns"),
              "'12 ns' is a duration, but expected a size with a unit (B, KiB, MiB, GiB, KB, MB, "
              "GB), like 512 KiB");
}

TEST(QuantityTest, BytesRejectsUnknownUnitsCaseSensitively) {
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "512 kib"),
              "unknown unit 'kib' in '512 kib': expected a size with a unit (B, KiB, MiB, GiB, KB, "
              "MB, GB), like 512 KiB; did you mean 'KiB'?");
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "512 Kb"), HasSubstr("unknown unit 'Kb'"));
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "512 kB"), HasSubstr("did you mean 'KB'?"));
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "512 bytes"), HasSubstr("unknown unit 'bytes'"));
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "1 TiB"), HasSubstr("unknown unit 'TiB'"));
}

TEST(QuantityTest, BytesRejectsNegativeFractionalOverflowAndGarbage) {
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "-1 KiB"), "expected a size that is not negative, got '-1 KiB'");
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "1.3 B"), "'1.3 B' is not a whole number of bytes");
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "1.0001 KiB"), HasSubstr("not a whole number"));
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "18446744073709551616 B"),
              "'18446744073709551616 B' is too large for a byte count");
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "17179869184 GiB"), HasSubstr("too large"));
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "1e30 B"), HasSubstr("too large"));
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "512 KiB x"),
              "unexpected 'x' after the unit in '512 KiB x': expected a size with a unit (B, KiB, "
              "MiB, GiB, KB, MB, GB), like 512 KiB");
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "512 KiBs"), HasSubstr("unknown unit 'KiBs'"));
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, "KiB"), "expected a size with a unit, like 512 KiB, got 'KiB'");
    EXPECT_EQ(rejectionOf<Bytes>(parseBytes, ""),
              "expected a size with a unit, like 512 KiB, got an empty value");
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "1,5 KiB"), HasSubstr("unknown unit ',5'"));
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, "+1 KiB"), HasSubstr("got '+1 KiB'"));
    EXPECT_THAT(rejectionOf<Bytes>(parseBytes, ".5 KiB"), HasSubstr("got '.5 KiB'"));
}

TEST(QuantityTest, BytesUseExactArithmetic) {
    const std::vector<std::pair<std::string, uint64_t>> whole{
        {"1.5 KiB", 1536},
        {"2.5e-1 KiB", 256},
        {"0.001 KB", 1},
        {"1e-3 KB", 1},
        {"0.75 GiB", 3ull << 28},
        {"4.096 KB", 4096},
        {"1.8446744073709551615e19 B", 18446744073709551615ull},
        {"16 GiB", 16ull << 30},
        {"000512 B", 512},
        {"512.000 B", 512},
    };
    for (const auto& [text, expected] : whole) {
        SCOPED_TRACE(text);
        std::string why;
        const std::optional<Bytes> value = parseBytes(text, &why);
        ASSERT_TRUE(value.has_value()) << why;
        EXPECT_EQ(value->value, expected);
    }
    for (const std::string text :
         {"0.5 B", "0.0001 KB", "1e-60 B", "4.0965 KB", "0.000000000000000000000000000000000000000001 B"}) {
        SCOPED_TRACE(text);
        EXPECT_THAT(rejectionOf<Bytes>(parseBytes, text), HasSubstr("not a whole number"));
    }
    for (const std::string text :
         {"1.8446744073709551616e19 B", "99999999999999999999999 B", "1e100000 B", "17179869184 GiB"}) {
        SCOPED_TRACE(text);
        EXPECT_THAT(rejectionOf<Bytes>(parseBytes, text), HasSubstr("too large"));
    }
}

TEST(QuantityTest, RealQuantitiesRejectValuesOutsideDouble) {
    EXPECT_THAT(rejectionOf<Duration>(parseDuration, "1e400 s"), HasSubstr("too large or too small"));
    EXPECT_THAT(rejectionOf<Duration>(parseDuration, "1e-400 s"), HasSubstr("too large or too small"));
    EXPECT_EQ(parseDuration("1e3 ns")->seconds, 1e-6);
    EXPECT_EQ(parseDuration("0 ps")->seconds, 0.0);
}

TEST(QuantityTest, FrequencyParsesEveryUnit) {
    const std::vector<std::pair<std::string, double>> cases{
        {"50 Hz", 50.0},    {"50Hz", 50.0},    {"32.768 kHz", 32768.0}, {"32.768kHz", 32768.0},
        {"800 MHz", 800e6}, {"800MHz", 800e6}, {"1 GHz", 1e9},          {"1GHz", 1e9},
        {"1.6 GHz", 1.6e9}, {"0 Hz", 0.0},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        std::string why;
        const std::optional<Frequency> value = parseFrequency(text, &why);
        ASSERT_TRUE(value.has_value()) << why;
        EXPECT_EQ(value->hz, expected);
    }
}

TEST(QuantityTest, FrequencyRejectsBadUnits) {
    EXPECT_EQ(rejectionOf<Frequency>(parseFrequency, "1"), "expected a frequency with a unit, like 1 GHz");
    EXPECT_THAT(rejectionOf<Frequency>(parseFrequency, "1 ghz"), HasSubstr("did you mean 'GHz'?"));
    EXPECT_THAT(rejectionOf<Frequency>(parseFrequency, "1 GB"),
                HasSubstr("'1 GB' is a size, but expected a frequency"));
    EXPECT_THAT(rejectionOf<Frequency>(parseFrequency, "-1 GHz"), HasSubstr("not negative"));
}

TEST(QuantityTest, BandwidthParsesEveryUnit) {
    const std::vector<std::pair<std::string, double>> cases{
        {"1 B/s", 1.0},
        {"1B/s", 1.0},
        {"2 KB/s", 2e3},
        {"2KB/s", 2e3},
        {"100 MB/s", 100e6},
        {"100MB/s", 100e6},
        {"25.6 GB/s", 25.6e9},
        {"25.6GB/s", 25.6e9},
        {"1 KiB/s", 1024.0},
        {"1KiB/s", 1024.0},
        {"3 MiB/s", 3.0 * (1 << 20)},
        {"3MiB/s", 3.0 * (1 << 20)},
        {"1.5 GiB/s", 1.5 * (1 << 30)},
        {"1.5GiB/s", 1.5 * (1 << 30)},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        std::string why;
        const std::optional<Bandwidth> value = parseBandwidth(text, &why);
        ASSERT_TRUE(value.has_value()) << why;
        EXPECT_EQ(value->bytes_per_s, expected);
    }
}

TEST(QuantityTest, BandwidthRejectsBadUnits) {
    EXPECT_EQ(rejectionOf<Bandwidth>(parseBandwidth, "25.6"),
              "expected a bandwidth with a unit, like 25.6 GB/s");
    EXPECT_THAT(rejectionOf<Bandwidth>(parseBandwidth, "25.6 GB"),
                HasSubstr("is a size, but expected a bandwidth"));
    EXPECT_THAT(rejectionOf<Bandwidth>(parseBandwidth, "25.6 Gb/s"), HasSubstr("unknown unit 'Gb/s'"));
    EXPECT_THAT(rejectionOf<Bandwidth>(parseBandwidth, "25.6 GB / s"),
                HasSubstr("is a size, but expected a bandwidth"));
}

TEST(QuantityTest, DurationParsesEveryUnit) {
    const std::vector<std::pair<std::string, double>> cases{
        {"1 ps", 1e-12},    {"1ps", 1e-12},    {"10 ns", 10e-9},   {"10ns", 10e-9},
        {"2.5 us", 2.5e-6}, {"2.5us", 2.5e-6}, {"3 ms", 3e-3},     {"3ms", 3e-3},
        {"1 s", 1.0},       {"1s", 1.0},       {"0.1 ns", 0.1e-9},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        std::string why;
        const std::optional<Duration> value = parseDuration(text, &why);
        ASSERT_TRUE(value.has_value()) << why;
        // Decimal units go through one correctly rounded conversion: equal to the literal.
        EXPECT_EQ(value->seconds, expected);
    }
}

TEST(QuantityTest, DurationRejectsBadUnits) {
    EXPECT_EQ(rejectionOf<Duration>(parseDuration, "10"), "expected a duration with a unit, like 10 ns");
    EXPECT_THAT(rejectionOf<Duration>(parseDuration, "10 Hz"),
                HasSubstr("is a frequency, but expected a duration"));
    EXPECT_THAT(rejectionOf<Duration>(parseDuration, "10 sec"), HasSubstr("unknown unit 'sec'"));
    EXPECT_THAT(rejectionOf<Duration>(parseDuration, "10 NS"), HasSubstr("did you mean 'ns'?"));
}

TEST(QuantityTest, EnergyParsesEveryUnit) {
    const std::vector<std::pair<std::string, double>> cases{
        {"3 fJ", 3e-15}, {"3fJ", 3e-15}, {"1.5 pJ", 1.5e-12}, {"1.5pJ", 1.5e-12},
        {"2 nJ", 2e-9},  {"2nJ", 2e-9},  {"4 uJ", 4e-6},      {"4uJ", 4e-6},
        {"5 mJ", 5e-3},  {"5mJ", 5e-3},  {"6 J", 6.0},        {"6J", 6.0},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        std::string why;
        const std::optional<Energy> value = parseEnergy(text, &why);
        ASSERT_TRUE(value.has_value()) << why;
        EXPECT_EQ(value->joules, expected);
    }
}

TEST(QuantityTest, EnergyRejectsBadUnits) {
    EXPECT_EQ(rejectionOf<Energy>(parseEnergy, "1.5"), "expected an energy with a unit, like 1.5 pJ");
    EXPECT_THAT(rejectionOf<Energy>(parseEnergy, "1.5 pW"), HasSubstr("unknown unit 'pW'"));
    EXPECT_THAT(rejectionOf<Energy>(parseEnergy, "1.5 mW"), HasSubstr("is a power, but expected an energy"));
}

TEST(QuantityTest, PowerParsesEveryUnit) {
    const std::vector<std::pair<std::string, double>> cases{
        {"7 uW", 7e-6}, {"7uW", 7e-6}, {"250 mW", 0.25}, {"250mW", 0.25}, {"2 W", 2.0}, {"2W", 2.0},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        std::string why;
        const std::optional<Power> value = parsePower(text, &why);
        ASSERT_TRUE(value.has_value()) << why;
        EXPECT_EQ(value->watts, expected);
    }
}

TEST(QuantityTest, PowerRejectsBadUnits) {
    EXPECT_EQ(rejectionOf<Power>(parsePower, "250"), "expected a power with a unit, like 250 mW");
    EXPECT_THAT(rejectionOf<Power>(parsePower, "250 mJ"), HasSubstr("is an energy, but expected a power"));
    EXPECT_THAT(rejectionOf<Power>(parsePower, "250 mw"), HasSubstr("did you mean 'mW'?"));
}

TEST(QuantityTest, ReasonIsOptional) {
    EXPECT_FALSE(parseBytes("12 ns").has_value());
    EXPECT_FALSE(parseFrequency("x", nullptr).has_value());
    EXPECT_EQ(parseBytes("1 KiB")->value, 1024u);
}

TEST(QuantityTest, FormatBytesUsesTheLargestExactBinaryUnit) {
    EXPECT_EQ(formatBytes(1 << 20), "1 MiB");
    EXPECT_EQ(formatBytes(1536), "1536 B");
    EXPECT_EQ(formatBytes(0), "0 B");
    EXPECT_EQ(formatBytes(1), "1 B");
    EXPECT_EQ(formatBytes(2048), "2 KiB");
    EXPECT_EQ(formatBytes(3ull << 30), "3 GiB");
    EXPECT_EQ(formatBytes(1ull << 40), "1024 GiB");
    EXPECT_EQ(formatBytes(1025), "1025 B");
}

TEST(QuantityTest, FormatRealQuantities) {
    EXPECT_EQ(formatFrequency(1.6e9), "1.6 GHz");
    EXPECT_EQ(formatFrequency(800e6), "800 MHz");
    EXPECT_EQ(formatFrequency(0.0), "0 Hz");
    EXPECT_EQ(formatBandwidth(25.6e9), "25.6 GB/s");
    EXPECT_EQ(formatDuration(10e-9), "10 ns");
    EXPECT_EQ(formatDuration(1.5), "1.5 s");
    EXPECT_EQ(formatDuration(2e-13), "0.2 ps");
    EXPECT_EQ(formatEnergy(1.5e-12), "1.5 pJ");
    EXPECT_EQ(formatPower(0.25), "250 mW");
    EXPECT_EQ(toString(Bytes{4096}), "4 KiB");
    EXPECT_EQ(toString(Frequency{2e9}), "2 GHz");
}

TEST(QuantityTest, QuantitiesCompareByMagnitude) {
    EXPECT_TRUE(Bytes{1} < Bytes{2});
    EXPECT_TRUE(Bytes{2} == Bytes{2});
    EXPECT_TRUE(Frequency{1e9} != Frequency{2e9});
    EXPECT_TRUE(Duration{1e-9} <= Duration{1e-9});
    EXPECT_TRUE(Power{1.0} > Power{0.5});
    EXPECT_TRUE(Energy{1.0} >= Energy{0.5});
    EXPECT_EQ(*parseBytes("1 MiB"), Bytes{1 << 20});
}

}  // namespace
}  // namespace tessim::config
