#include "run/sweep/ResultsStore.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace tessim::sweep {
namespace {

std::runtime_error systemError(const std::string& what, const std::string& path) {
    return std::runtime_error(fmt::format("{} '{}': {}", what, path, std::strerror(errno)));
}

bool fileExists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw systemError("cannot read", path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Complete lines only: text after the last '\n' is a torn write of a killed run.
std::vector<std::string> completeLines(const std::string& text, bool* torn) {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
        lines.push_back(text.substr(start, nl - start + 1));
    }
    *torn = start != text.size();
    return lines;
}

void writeAll(int fd, const std::string& data, const std::string& path) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw systemError("cannot write", path);
        }
        done += static_cast<size_t>(n);
    }
}

int openForAppend(const std::string& path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        throw systemError("cannot open", path);
    return fd;
}

void syncDirectory(const std::string& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

}  // namespace

void makeDirectories(const std::string& path) {
    std::string partial;
    size_t pos = 0;
    while (pos != std::string::npos) {
        pos = path.find('/', pos + 1);
        partial = path.substr(0, pos);
        if (partial.empty())
            continue;
        if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
            throw systemError("cannot create directory", partial);
        }
    }
}

void writeFileAtomically(const std::string& path, const std::string& content) {
    std::string temp = path + ".tmp";
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw systemError("cannot write", temp);
    try {
        writeAll(fd, content, temp);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::fsync(fd);
    ::close(fd);
    if (::rename(temp.c_str(), path.c_str()) != 0)
        throw systemError("cannot rename", temp);
    size_t slash = path.find_last_of('/');
    syncDirectory(slash == std::string::npos ? "." : path.substr(0, slash));
}

ResultsStore::ResultsStore(std::string dir, ResultColumns columns, nlohmann::ordered_json identity,
                           bool resume)
    : dir_(std::move(dir)), columns_(std::move(columns)) {
    makeDirectories(dir_);
    std::string identityPath = dir_ + "/sweep.json";
    bool hasResults = fileExists(csvPath()) || fileExists(jsonlPath());
    if (hasResults && !resume) {
        throw std::runtime_error(
            fmt::format("'{}' already holds sweep results; pass --resume to continue that sweep, or choose "
                        "another --out",
                        dir_));
    }
    if (fileExists(identityPath) && hasResults) {
        auto earlier = nlohmann::ordered_json::parse(readFile(identityPath), nullptr, false);
        if (earlier != identity) {
            throw std::runtime_error(
                fmt::format("cannot resume in '{}': its results were made with a different base run, "
                            "parameter list or metrics (see {}); use another --out",
                            dir_, identityPath));
        }
    }
    writeFileAtomically(identityPath, identity.dump(2) + "\n");
    if (hasResults)
        loadExisting();
    csvFd_ = openForAppend(csvPath());
    jsonlFd_ = openForAppend(jsonlPath());
    if (::lseek(csvFd_, 0, SEEK_END) == 0) {
        writeAll(csvFd_, csvHeader(columns_), csvPath());
        ::fdatasync(csvFd_);
    }
    syncer_ = std::thread([this] { syncLoop(); });
}

ResultsStore::~ResultsStore() {
    if (syncer_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(syncMutex_);
            stopping_ = true;
        }
        syncWake_.notify_all();
        syncer_.join();
    }
    if (csvFd_ >= 0)
        ::close(csvFd_);
    if (jsonlFd_ >= 0)
        ::close(jsonlFd_);
}

void ResultsStore::syncLoop() {
    std::unique_lock<std::mutex> lock(syncMutex_);
    for (;;) {
        syncWake_.wait(lock, [this] { return stopping_ || appended_ > synced_; });
        if (appended_ == synced_ && stopping_)
            return;
        uint64_t target = appended_;
        lock.unlock();
        ::fdatasync(jsonlFd_);
        ::fdatasync(csvFd_);
        lock.lock();
        synced_ = target;
        syncWake_.notify_all();
    }
}

void ResultsStore::sync() {
    std::unique_lock<std::mutex> lock(syncMutex_);
    uint64_t target = appended_;
    syncWake_.wait(lock, [&] { return synced_ >= target; });
}

void ResultsStore::loadExisting() {
    bool jsonTorn = false;
    bool csvTorn = false;
    std::vector<std::string> jsonLines = fileExists(jsonlPath())
                                             ? completeLines(readFile(jsonlPath()), &jsonTorn)
                                             : std::vector<std::string>{};
    std::vector<std::string> csvLines =
        fileExists(csvPath()) ? completeLines(readFile(csvPath()), &csvTorn) : std::vector<std::string>{};
    std::string header = csvHeader(columns_);
    if (!csvLines.empty() && csvLines.front() != header) {
        throw std::runtime_error(fmt::format(
            "cannot resume: the columns of '{}' differ from this sweep's; use another --out", csvPath()));
    }

    std::map<std::string, std::string> csvById;
    size_t csvRows = 0;
    for (size_t i = 1; i < csvLines.size(); ++i) {
        std::string id = csvRecordId(csvLines[i]);
        if (!id.empty()) {
            csvById.emplace(id, csvLines[i]);
            ++csvRows;
        }
    }
    // A row counts when both files hold it; anything else is rerun.
    std::string jsonKept;
    std::string csvKept = header;
    bool changed = jsonTorn || csvTorn || csvLines.empty() || csvRows + 1 != csvLines.size();
    for (const std::string& line : jsonLines) {
        auto row = parseJsonLine(line);
        auto csv = row ? csvById.find(row->id) : csvById.end();
        if (!row || csv == csvById.end() || done_.count(row->id)) {
            changed = true;
            continue;
        }
        jsonKept += line;
        csvKept += csv->second;
        done_.insert(row->id);
        rows_.push_back(std::move(*row));
    }
    if (done_.size() != csvRows)
        changed = true;
    if (changed) {
        writeFileAtomically(jsonlPath(), jsonKept);
        writeFileAtomically(csvPath(), csvKept);
    }
    resumed_ = rows_.size();
}

void ResultsStore::append(const ResultRow& row) {
    writeAll(jsonlFd_, jsonLine(row), jsonlPath());
    writeAll(csvFd_, csvLine(row, columns_), csvPath());
    {
        std::lock_guard<std::mutex> lock(syncMutex_);
        ++appended_;
    }
    syncWake_.notify_all();
    done_.insert(row.id);
    rows_.push_back(row);
}

void ResultsStore::rewriteInOrder(const std::vector<std::string>& order) {
    sync();
    std::map<std::string, std::size_t> rank;
    for (std::size_t i = 0; i < order.size(); ++i)
        rank.emplace(order[i], i + 1);
    auto rankOf = [&](const ResultRow& row) {
        auto it = rank.find(row.id);
        return it == rank.end() ? std::size_t{0} : it->second;
    };
    std::stable_sort(rows_.begin(), rows_.end(),
                     [&](const ResultRow& a, const ResultRow& b) { return rankOf(a) < rankOf(b); });
    std::string csv = csvHeader(columns_), jsonl;
    for (const ResultRow& row : rows_) {
        csv += csvLine(row, columns_);
        jsonl += jsonLine(row);
    }
    writeFileAtomically(jsonlPath(), jsonl);
    writeFileAtomically(csvPath(), csv);
}

}  // namespace tessim::sweep
