#include "run/sweep/ProcessPool.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tessim::sweep {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxStdout = 256u << 20;
constexpr size_t kMaxStderr = 64u << 10;  // the tail is what explains a failure

std::string readMemoryFile(int fd, size_t limit, bool keepTail) {
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size <= 0)
        return "";
    auto size = static_cast<size_t>(st.st_size);
    size_t length = std::min(size, limit);
    off_t offset = keepTail ? static_cast<off_t>(size - length) : 0;
    std::string text(length, '\0');
    size_t done = 0;
    while (done < length) {
        ssize_t n = ::pread(fd, text.data() + done, length - done, offset + static_cast<off_t>(done));
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        done += static_cast<size_t>(n);
    }
    text.resize(done);
    return text;
}

std::string resolveExecutable(const std::string& name) {
    if (name.find('/') != std::string::npos)
        return name;
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t colon = dirs.find(':', start);
        std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        if (colon == std::string::npos)
            break;
        start = colon + 1;
    }
    return name;
}

int pidfdOpen(pid_t pid) {
#ifdef SYS_pidfd_open
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
    return -1;
#endif
}

}  // namespace

struct ProcessPool::Child {
    size_t tag = 0;
    pid_t pid = -1;
    int pidfd = -1;
    int outFd = -1;
    int errFd = -1;
    Clock::time_point started;
    bool timedOut = false;
    int status = 0;
    bool exited = false;
};

size_t availableCores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0)
            return static_cast<size_t>(count);
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

ProcessPool::ProcessPool(size_t slots, double timeoutSeconds, std::vector<std::string> extraEnvironment)
    : slots_(std::max<size_t>(1, slots)), timeout_(timeoutSeconds) {
    for (char** e = environ; e && *e; ++e) {
        std::string entry = *e;
        std::string name = entry.substr(0, entry.find('='));
        bool replaced =
            std::any_of(extraEnvironment.begin(), extraEnvironment.end(),
                        [&](const std::string& x) { return x.compare(0, name.size() + 1, name + "=") == 0; });
        if (!replaced)
            environment_.push_back(entry);
    }
    environment_.insert(environment_.end(), extraEnvironment.begin(), extraEnvironment.end());
}

ProcessPool::~ProcessPool() {
    killAll();
}

void ProcessPool::start(size_t tag, const std::vector<std::string>& argv) {
    auto fail = [&](const std::string& why) {
        Finished f{tag, {}};
        f.result.startError = why;
        failedStarts_.push_back(std::move(f));
    };
    if (argv.empty())
        return fail("empty command");
    auto* child = new Child;
    child->tag = tag;
    child->outFd = ::memfd_create("tessim-point-stdout", MFD_CLOEXEC);
    child->errFd = ::memfd_create("tessim-point-stderr", MFD_CLOEXEC);
    if (child->outFd < 0 || child->errFd < 0) {
        std::string why = std::string("memfd_create: ") + std::strerror(errno);
        if (child->outFd >= 0)
            ::close(child->outFd);
        if (child->errFd >= 0)
            ::close(child->errFd);
        delete child;
        return fail(why);
    }
    // Everything the child needs is prepared before fork: after it only system calls happen.
    std::string program = resolveExecutable(argv[0]);
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> env;
    for (const auto& e : environment_)
        env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    pid_t parent = ::getpid();

    pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);
        // The point dies with the sweep (kill -9 included), so a resume never races an orphan.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent)
            ::_exit(137);
        int devNull = ::open("/dev/null", O_RDONLY);
        if (devNull >= 0)
            ::dup2(devNull, 0);
        ::dup2(child->outFd, 1);
        ::dup2(child->errFd, 2);
        ::execve(program.c_str(), args.data(), env.data());
        const char* msg = "cannot execute ";
        (void)!::write(2, msg, std::strlen(msg));
        (void)!::write(2, program.c_str(), program.size());
        (void)!::write(2, ": ", 2);
        const char* why = std::strerror(errno);
        (void)!::write(2, why, std::strlen(why));
        ::_exit(127);
    }
    if (pid < 0) {
        std::string why = std::string("fork: ") + std::strerror(errno);
        ::close(child->outFd);
        ::close(child->errFd);
        delete child;
        return fail(why);
    }
    ::setpgid(pid, pid);  // also here, so a kill right after start reaches the group
    child->pid = pid;
    child->pidfd = pidfdOpen(pid);
    child->started = Clock::now();
    children_.push_back(child);
}

bool ProcessPool::reap(Child& child, bool block) {
    if (child.exited)
        return true;
    // Peek first (WNOWAIT): while the leader is an unreaped zombie its pid, and so its group id,
    // cannot be reused, so the group kill below cannot hit a stranger.
    siginfo_t info{};
    int r;
    do {
        r = ::waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG));
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        child.exited = true;  // not ours any more; report what we have
        return true;
    }
    if (info.si_pid != child.pid)
        return false;
    // Grandchildren left in the group go with their leader.
    ::kill(-child.pid, SIGKILL);
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    child.status = status;
    child.exited = true;
    return true;
}

ProcessPool::Finished ProcessPool::collect(Child& child) {
    Finished f{child.tag, {}};
    ProcessResult& r = f.result;
    if (WIFEXITED(child.status))
        r.exitCode = WEXITSTATUS(child.status);
    if (WIFSIGNALED(child.status))
        r.signal = WTERMSIG(child.status);
    r.timedOut = child.timedOut;
    r.out = readMemoryFile(child.outFd, kMaxStdout, false);
    r.err = readMemoryFile(child.errFd, kMaxStderr, true);
    r.seconds = std::chrono::duration<double>(Clock::now() - child.started).count();
    ::close(child.outFd);
    ::close(child.errFd);
    if (child.pidfd >= 0)
        ::close(child.pidfd);
    return f;
}

std::vector<ProcessPool::Finished> ProcessPool::wait(double maxSeconds) {
    auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(std::max(0.0, maxSeconds)));
    std::vector<Finished> finished = std::move(failedStarts_);
    failedStarts_.clear();
    for (;;) {
        auto now = Clock::now();
        for (auto it = children_.begin(); it != children_.end();) {
            Child& c = **it;
            if (!c.exited && timeout_ > 0.0 && now - c.started >= std::chrono::duration<double>(timeout_)) {
                c.timedOut = true;
                ::kill(-c.pid, SIGKILL);
                ::kill(c.pid, SIGKILL);
                reap(c, true);
            }
            if (reap(c, false)) {
                finished.push_back(collect(c));
                delete *it;
                it = children_.erase(it);
            } else {
                ++it;
            }
        }
        if (!finished.empty() || children_.empty() || now >= until)
            return finished;

        // Sleep until a child exits, the next timeout falls due or the caller's time is up.
        auto wake = until;
        if (timeout_ > 0.0) {
            for (Child* c : children_) {
                wake = std::min(wake, c->started + std::chrono::duration_cast<Clock::duration>(
                                                       std::chrono::duration<double>(timeout_)));
            }
        }
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count() + 1;
        std::vector<pollfd> fds;
        for (Child* c : children_) {
            if (c->pidfd < 0) {
                fds.clear();
                break;
            }
            fds.push_back({c->pidfd, POLLIN, 0});
        }
        if (!fds.empty()) {
            ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(0, ms)));
        } else {
            // No pidfd (old kernel): poll the children every 2 ms.
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long long>(ms, 2)));
        }
    }
}

void ProcessPool::killAll() {
    for (Child* c : children_) {
        if (!c->exited) {
            ::kill(-c->pid, SIGKILL);
            ::kill(c->pid, SIGKILL);
            reap(*c, true);
        }
        collect(*c);
        delete c;
    }
    children_.clear();
    failedStarts_.clear();
}

ProcessResult runProcess(const std::vector<std::string>& argv, double timeoutSeconds) {
    ProcessPool pool(1, timeoutSeconds);
    pool.start(0, argv);
    for (;;) {
        std::vector<ProcessPool::Finished> done = pool.wait(3600.0);
        if (!done.empty())
            return std::move(done.front().result);
    }
}

}  // namespace tessim::sweep
