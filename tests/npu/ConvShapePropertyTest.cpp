// Random small conv2d shapes (seeded, so every run draws the same ones): padding up to 5 with
// kernels from 1 (pad > k), square and rectangular kernels with padding and stride per dimension,
// strides up to 5 (stride > k), 1×1 maps, every strategy, tiles chosen
// by the planner or forced small. Each shape either runs functionally, bit-exact against the
// direct convolution, or is refused at configuration time (ConfigError) — and only when the
// kernel does not fit the padded input. Each simulation runs in a forked child (one SystemC
// kernel per process); the child reports through a pipe.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run/pipeline/Simulation.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

struct Shape {
    unsigned h, w, c, f, kh, kw, strideH, strideW, padH, padW;
    std::string plan;
    std::vector<std::string> extra;
    std::string describe() const {
        std::string s = "h " + std::to_string(h) + " w " + std::to_string(w) + " c " + std::to_string(c) +
                        " f " + std::to_string(f) + " kernel " + std::to_string(kh) + "×" +
                        std::to_string(kw) + " stride " + std::to_string(strideH) + "×" +
                        std::to_string(strideW) + " pad " + std::to_string(padH) + "×" +
                        std::to_string(padW) + " plan " + plan;
        for (const auto& e : extra)
            s += " " + e;
        return s;
    }
};

// Outcome codes of the child.
enum Outcome : int { kExact = 0, kRefused = 2, kMismatch = 3, kRuntimeError = 4 };

struct Result {
    int outcome = -1;
    std::string message;
};

Result runInChild(const Shape& s) {
    int fds[2];
    if (pipe(fds) != 0)
        return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int code = kExact;
        std::string message;
        try {
            RunRequest r;
            r.target = "npu";
            r.workload = "conv1080p";
            r.plan = s.plan;
            r.functional = true;
            r.sets = {"workload.h=" + std::to_string(s.h),
                      "workload.w=" + std::to_string(s.w),
                      "workload.channels=" + std::to_string(s.c),
                      "workload.filters=" + std::to_string(s.f),
                      "workload.kh=" + std::to_string(s.kh),
                      "workload.kw=" + std::to_string(s.kw),
                      "workload.stride_h=" + std::to_string(s.strideH),
                      "workload.stride_w=" + std::to_string(s.strideW),
                      "workload.pad_h=" + std::to_string(s.padH),
                      "workload.pad_w=" + std::to_string(s.padW)};
            r.sets.insert(r.sets.end(), s.extra.begin(), s.extra.end());
            auto report = runSimulation(r);
            const auto& f = report["functional"];
            if (f["mismatches"].get<std::uint64_t>() != 0 || f["elements"].get<std::uint64_t>() == 0) {
                code = kMismatch;
                message = f.dump();
            }
        } catch (const config::ConfigError& e) {
            code = kRefused;
            message = e.what();
        } catch (const std::exception& e) {
            code = kRuntimeError;
            message = e.what();
        }
        const ssize_t written = write(fds[1], message.data(), message.size());
        (void)written;
        close(fds[1]);
        _exit(code);
    }
    close(fds[1]);
    Result result;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        result.message.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    result.outcome = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

// Draws `count` shapes; square: one kernel size and one padding for both dimensions, else each
// dimension its own. Each legal shape must run bit-exact, each other one be refused up front.
void drawAndRun(std::uint32_t seed, int count, bool square, unsigned minRan) {
    std::mt19937 rng(seed);
    auto pick = [&](unsigned lo, unsigned hi) {
        return std::uniform_int_distribution<unsigned>(lo, hi)(rng);
    };
    const char* plans[] = {"naive", "static-single", "double-buffer"};
    unsigned ran = 0, refused = 0;
    for (int i = 0; i < count; ++i) {
        Shape s;
        s.h = pick(1, 12);
        s.w = pick(1, 12);
        s.c = pick(1, 6);
        s.f = pick(1, 6);
        s.kh = pick(1, 6);
        s.kw = square ? s.kh : pick(1, 6);
        s.strideH = pick(1, 5);
        s.strideW = square ? s.strideH : pick(1, 5);
        s.padH = pick(0, 5);
        s.padW = square ? s.padH : pick(0, 5);
        s.plan = plans[pick(0, 2)];
        if (s.plan != "naive" && pick(0, 1) == 1) {  // force small tiles: several steps per layer
            s.extra = {
                "plan.tile_h=" + std::to_string(pick(1, 3)), "plan.tile_w=" + std::to_string(pick(1, 3)),
                "plan.tile_c=" + std::to_string(pick(1, 2)), "plan.tile_f=" + std::to_string(pick(1, 2))};
        }
        if (pick(0, 3) == 0)
            s.extra.push_back("workload.output_dtype=i32");
        const bool fits = s.kh <= s.h + 2 * s.padH && s.kw <= s.w + 2 * s.padW;
        const Result r = runInChild(s);
        if (fits) {
            EXPECT_EQ(r.outcome, kExact) << s.describe() << ": " << r.message;
            ++ran;
        } else {
            EXPECT_EQ(r.outcome, kRefused) << s.describe() << ": " << r.message;
            EXPECT_NE(r.message.find("does not fit"), std::string::npos) << r.message;
            ++refused;
        }
    }
    // The draw covers both kinds of shape.
    EXPECT_GT(ran, minRan);
    EXPECT_GT(refused, 0u);
}

TEST(ConvShapeProperty, EveryLegalShapeRunsBitExactOrIsRefusedUpFront) {
    drawAndRun(20261130, 400, true, 250);
}

// Rectangular kernels, and strides and padding that differ between the dimensions.
TEST(ConvShapeProperty, EveryLegalRectangularShapeRunsBitExactOrIsRefusedUpFront) {
    drawAndRun(20261201, 150, false, 90);
}

}  // namespace
}  // namespace tessim
