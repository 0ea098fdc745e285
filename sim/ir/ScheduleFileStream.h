// One engine's ops of a JSON Lines schedule, read from the file a chunk at a time as the engine
// pulls them, so a replayed schedule of any length runs in bounded memory, as a generated one does.
//
// Why re-read the file rather than split it: readSchedule checks every line first and keeps, per
// engine, only its op count and where its lines lie (a bounded list of byte ranges); each stream
// then opens the file itself, seeks to its ranges and parses its own lines as the engine runs.
// Holding the ops costs ~120 B each (1.2 GB for 10^7), an offset per op 8 B each, and per-engine
// temporary files as much disk (or, where /tmp is in memory, RAM) as the ops; re-reading costs a
// second parse of each line and nothing that grows with the schedule. An emitted schedule writes
// each engine's ops in one run of lines, so each stream reads exactly its own lines; where
// engines' lines alternate, a stream skips the other engines' lines, telling them apart by their
// "engine" field without parsing them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "sim/ir/OpStream.h"
#include "sim/machine/TargetInfo.h"

namespace tessim {

class ScheduleFileStream : public ChunkedOpStream {
public:
    // Ops parsed per refill: what one stream holds at most.
    static constexpr std::size_t kChunkOps = 1024;
    // Byte ranges kept per engine at most: past it, neighbouring ranges are merged (the stream
    // then skips more of the other engines' lines).
    static constexpr std::size_t kMaxExtents = 256;

    // A byte range [begin, end) of the file that starts with a line of the engine (line number
    // firstLine) and holds all its lines up to end.
    struct Extent {
        std::uint64_t begin = 0;
        std::uint64_t end = 0;
        int firstLine = 0;
    };
    // Where one engine's ops lie, gathered as readSchedule checks the file.
    struct Index {
        std::string engine;
        std::uint64_t ops = 0;
        std::vector<Extent> extents;
        // One more op line of the engine: [begin, end) of the file, line number `line`;
        // `followsLast`: no other engine's op line since its previous one.
        void add(std::uint64_t begin, std::uint64_t end, int line, bool followsLast);
    };

    // Opens `path` now: the stream reads on if the file is then removed.
    ScheduleFileStream(const std::string& path, Index index, std::shared_ptr<const TargetInfo> target);

    // An op of a schedule file: its engine and its index among that engine's ops (from 0).
    struct OpRef {
        std::string engine;
        std::uint64_t index = 0;
    };
    // The line of each op of `ops` in the file (0 where it has no such op), its ops counted as
    // readSchedule counts them: one pass over the file, for error paths, so that nothing is kept
    // per op while a schedule runs.
    static std::vector<int> linesOf(const std::string& path, const std::vector<OpRef>& ops);

    std::uint64_t opsRead() const { return opsRead_; }
    // The most ops one refill held: at most kChunkOps, whatever the length of the schedule.
    std::size_t largestChunk() const { return largestChunk_; }
    std::size_t extents() const { return index_.extents.size(); }

protected:
    bool refill(std::vector<Op>& out) override;

private:
    void seekExtent(std::size_t extent);
    [[noreturn]] void changed() const;

    std::string path_;
    Index index_;
    std::shared_ptr<const TargetInfo> target_;
    std::ifstream in_;
    std::size_t extent_ = 0;      // the range being read
    std::uint64_t position_ = 0;  // byte offset of the next line
    int line_ = 0;                // number of the line last read
    std::uint64_t opsRead_ = 0;
    std::size_t largestChunk_ = 0;
    std::string text_, engine_;
};

}  // namespace tessim
