// Progress on stderr: a redrawn bar on a terminal, plain lines otherwise.
#include <gtest/gtest.h>

#include <sstream>

#include "run/sweep/Progress.h"

namespace tessim::sweep {
namespace {

TEST(Progress, TerminalBarShowsDoneFailedRunningAndEta) {
    std::ostringstream out;
    Progress progress(out, true, 10, 2);
    progress.tick(3);
    progress.pointFinished(PointStatus::Ok);
    progress.pointFinished(PointStatus::Timeout);
    progress.finish();
    std::string text = out.str();
    EXPECT_EQ(text.rfind("\r[", 0), 0u) << text;
    EXPECT_NE(text.find("2/10 done, 0 failed, 3 running, ETA ?"), std::string::npos) << text;
    EXPECT_NE(text.find("[############..................] 4/10 done, 1 failed, 0 running, ETA"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.back(), '\n');
}

TEST(Progress, PlainLinesAreRateLimited) {
    std::ostringstream out;
    Progress progress(out, false, 100, 0, 3600.0);
    for (int i = 0; i < 50; ++i) {
        progress.pointFinished(PointStatus::Ok);
        progress.tick(2);
    }
    progress.finish();
    std::string text = out.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;  // the first and the last
    EXPECT_EQ(text.find('\r'), std::string::npos);
    EXPECT_NE(text.find("sweep: 50/100 done, 0 failed, 0 running"), std::string::npos) << text;
    EXPECT_EQ(formatEta(42), "42 s");
    EXPECT_EQ(formatEta(187), "3m07s");
    EXPECT_EQ(formatEta(3720), "1h02m");
}

}  // namespace
}  // namespace tessim::sweep
