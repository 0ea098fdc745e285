// DIR/results.csv and DIR/results.jsonl, appended one whole line per write() with O_APPEND, so a
// sweep killed at any instant leaves at most a torn last line; a background thread fdatasyncs
// the files after every append (group commit: rows that arrive during a sync share the next one),
// so a slow disk does not hold up the points. Opening with resume
// drops torn lines and rows that only one of the two files holds, so the files end up equal to
// an uninterrupted run's.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/sweep/ResultRow.h"

namespace tessim::sweep {

class ResultsStore {
public:
    /// `identity` describes what the rows mean (base run, columns); it is kept in
    /// DIR/sweep.json and a resume with a different one is refused. Without `resume`, a
    /// directory that already holds results is refused too. Throws std::runtime_error.
    ResultsStore(std::string dir, ResultColumns columns, nlohmann::ordered_json identity, bool resume);
    ~ResultsStore();
    ResultsStore(const ResultsStore&) = delete;
    ResultsStore& operator=(const ResultsStore&) = delete;

    /// Ids of the rows already present (from an earlier run, or appended since).
    const std::set<std::string>& doneIds() const { return done_; }
    size_t resumedCount() const { return resumed_; }

    /// Appends the row to both files (JSON Lines first); the sync follows in the background.
    void append(const ResultRow& row);
    /// Returns once every row appended so far is on disk.
    void sync();

    /// Once every point has run: both files rewritten (atomically) with this sweep's rows in
    /// `order` (the points' order), after rows of earlier sweeps that `order` does not name, so
    /// the files do not depend on which point finished first (--jobs, MPI ranks).
    void rewriteInOrder(const std::vector<std::string>& order);

    /// Every row, earlier ones first, in file order.
    const std::vector<ResultRow>& rows() const { return rows_; }

    const std::string& dir() const { return dir_; }
    std::string csvPath() const { return dir_ + "/results.csv"; }
    std::string jsonlPath() const { return dir_ + "/results.jsonl"; }
    const ResultColumns& columns() const { return columns_; }

private:
    void loadExisting();
    void syncLoop();

    std::string dir_;
    ResultColumns columns_;
    std::vector<ResultRow> rows_;
    std::set<std::string> done_;
    size_t resumed_ = 0;
    int csvFd_ = -1;
    int jsonlFd_ = -1;

    std::mutex syncMutex_;
    std::condition_variable syncWake_;
    uint64_t appended_ = 0;  // rows written
    uint64_t synced_ = 0;    // rows known to be on disk
    bool stopping_ = false;
    std::thread syncer_;
};

/// Writes a whole file atomically (temporary file, fsync, rename).
void writeFileAtomically(const std::string& path, const std::string& content);

/// mkdir -p; throws std::runtime_error.
void makeDirectories(const std::string& path);

}  // namespace tessim::sweep
