// Results files: one whole line per row, torn lines and half-written rows dropped on resume,
// results of another sweep never mixed in; Pareto fronts compare sizes as bytes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include "run/sweep/Pareto.h"
#include "run/sweep/ResultsStore.h"
#include "tests/sweep/SweepTestSupport.h"

namespace tessim::sweep {
namespace {

using namespace tessim::sweep::testing;

const ResultColumns kColumns{{"target.sram.size", "plan.strategy"}, {"seconds", "energy_j.total"}};

nlohmann::ordered_json identity() {
    return {{"schema", "test"}, {"target", "npu"}};
}

ResultRow makeRow(const std::string& size, const std::string& strategy, double seconds,
                  PointStatus status = PointStatus::Ok) {
    ResultRow row;
    row.params = {{"target.sram.size", size}, {"plan.strategy", strategy}};
    row.id = pointId(row.params);
    row.metrics = {{"seconds", seconds}, {"energy_j.total", seconds * 2}};
    row.status = status;
    if (status != PointStatus::Ok)
        row.message = "exit 2: bad, \"quoted\" value";
    return row;
}

void appendRaw(const std::string& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
}

TEST(ResultRow, CsvAndJsonLines) {
    ResultRow row = makeRow("256 KiB", "naive", 0.5, PointStatus::Error);
    EXPECT_EQ(csvHeader(kColumns), "id,target.sram.size,plan.strategy,seconds,energy_j.total,"
                                   "status,message\n");
    EXPECT_EQ(csvLine(row, kColumns),
              row.id + ",256 KiB,naive,0.5,1.0,error,\"exit 2: bad, \"\"quoted\"\" value\"\n");
    std::string json = jsonLine(row);
    EXPECT_EQ(json.back(), '\n');
    EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 1);
    auto back = parseJsonLine(json);
    ASSERT_TRUE(back);
    EXPECT_EQ(jsonLine(*back), json);
    EXPECT_FALSE(parseJsonLine(json.substr(0, json.size() / 2)));
    EXPECT_EQ(csvRecordId(csvLine(row, kColumns)), row.id);
    EXPECT_EQ(csvRecordId(csvHeader(kColumns)), "");
}

TEST(ResultsStore, AppendsAndRefusesToOverwrite) {
    ScratchDir scratch("store");
    const std::string& dir = scratch.path;
    {
        ResultsStore store(dir, kColumns, identity(), false);
        store.append(makeRow("256 KiB", "naive", 1.0));
        store.append(makeRow("1 MiB", "naive", 0.5));
    }
    EXPECT_EQ(countLines(dir + "/results.csv"), 3u);
    EXPECT_EQ(countLines(dir + "/results.jsonl"), 2u);
    EXPECT_THROW(ResultsStore(dir, kColumns, identity(), false), std::runtime_error);
    nlohmann::ordered_json other = identity();
    other["target"] = "k1";
    EXPECT_THROW(ResultsStore(dir, kColumns, other, true), std::runtime_error);
    ResultColumns moreColumns = kColumns;
    moreColumns.metrics.push_back("cycles");
    EXPECT_THROW(ResultsStore(dir, moreColumns, identity(), true), std::runtime_error);

    ResultsStore resumed(dir, kColumns, identity(), true);
    EXPECT_EQ(resumed.doneIds().size(), 2u);
    EXPECT_EQ(resumed.resumedCount(), 2u);
}

TEST(ResultsStore, ResumeDropsTornAndHalfWrittenRows) {
    ScratchDir scratch("torn");
    const std::string& dir = scratch.path;
    ResultRow a = makeRow("256 KiB", "naive", 1.0);
    ResultRow b = makeRow("512 KiB", "naive", 0.7, PointStatus::Timeout);
    ResultRow c = makeRow("1 MiB", "naive", 0.5);
    std::string cleanCsv;
    std::string cleanJson;
    {
        ResultsStore store(dir, kColumns, identity(), false);
        store.append(a);
        store.append(b);
        cleanCsv = readText(dir + "/results.csv");
        cleanJson = readText(dir + "/results.jsonl");
    }
    // Killed between the two writes of row c, then in the middle of the next JSON line.
    appendRaw(dir + "/results.jsonl", jsonLine(c));
    appendRaw(dir + "/results.jsonl", jsonLine(c).substr(0, 20));
    {
        ResultsStore store(dir, kColumns, identity(), true);
        EXPECT_EQ(store.doneIds(), (std::set<std::string>{a.id, b.id}));
        EXPECT_EQ(readText(dir + "/results.csv"), cleanCsv);
        EXPECT_EQ(readText(dir + "/results.jsonl"), cleanJson);
        store.append(c);
    }
    // A torn CSV line (the JSON line made it).
    ResultRow d = makeRow("2 MiB", "naive", 0.4);
    appendRaw(dir + "/results.jsonl", jsonLine(d));
    appendRaw(dir + "/results.csv", csvLine(d, kColumns).substr(0, 10));
    ResultsStore store(dir, kColumns, identity(), true);
    EXPECT_EQ(store.doneIds(), (std::set<std::string>{a.id, b.id, c.id}));
    EXPECT_EQ(countLines(dir + "/results.csv"), 4u);
    EXPECT_EQ(countLines(dir + "/results.jsonl"), 3u);
    EXPECT_EQ(store.rows()[1].status, PointStatus::Timeout);
}

TEST(Pareto, SizesCompareAsBytes) {
    std::vector<ResultRow> rows{
        makeRow("768 KiB", "a", 10.0),  // front
        makeRow("1 MiB", "a", 5.0),     // front
        makeRow("1 MiB", "b", 12.0),    // dominated by 768 KiB / 10 s (not as text: "1" < "7")
        makeRow("4 MiB", "a", 5.0),     // dominated by 1 MiB / 5 s
        makeRow("2 MiB", "a", 1.0),     // front
        makeRow("256 KiB", "a", 0.1, PointStatus::Error),  // failed points are left out
    };
    std::vector<Objective> objectives{{"seconds", Direction::Minimize},
                                      {"target.sram.size", Direction::Minimize}};
    std::vector<size_t> front = paretoFront(rows, objectives);
    EXPECT_EQ(front, (std::vector<size_t>{4, 1, 0}));

    // Maximising seconds (a strange wish) turns the order around.
    objectives[0].direction = Direction::Maximize;
    front = paretoFront(rows, objectives);
    EXPECT_EQ(front, (std::vector<size_t>{2, 0}));
    EXPECT_TRUE(paretoFront(rows, {}).empty());
}

}  // namespace
}  // namespace tessim::sweep
