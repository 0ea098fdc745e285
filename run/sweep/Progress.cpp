#include "run/sweep/Progress.h"

#include <cmath>

#include <fmt/format.h>

namespace tessim::sweep {

std::string formatEta(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return "?";
    auto s = static_cast<long long>(std::llround(seconds));
    if (s < 60)
        return fmt::format("{} s", s);
    if (s < 3600)
        return fmt::format("{}m{:02}s", s / 60, s % 60);
    return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

Progress::Progress(std::ostream& out, bool terminal, size_t total, size_t alreadyDone,
                   double lineIntervalSeconds)
    : out_(out), terminal_(terminal), total_(total), earlier_(alreadyDone),
      interval_(terminal ? 0.1 : lineIntervalSeconds) {}

double Progress::elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
}

void Progress::pointFinished(PointStatus status) {
    ++done_;
    if (status != PointStatus::Ok)
        ++failed_;
}

void Progress::tick(size_t running) {
    running_ = running;
    auto now = Clock::now();
    if (drawn_ && std::chrono::duration<double>(now - lastDraw_).count() < interval_)
        return;
    draw(running);
}

void Progress::draw(size_t running) {
    lastDraw_ = Clock::now();
    drawn_ = true;
    size_t finished = earlier_ + done_;
    size_t remaining = total_ > finished ? total_ - finished : 0;
    double t = elapsed();
    std::string eta =
        done_ == 0 ? "?" : formatEta(t / static_cast<double>(done_) * static_cast<double>(remaining));
    if (remaining == 0)
        eta = "0 s";
    if (terminal_) {
        constexpr size_t width = 30;
        size_t filled = total_ == 0 ? width : width * finished / total_;
        std::string bar(filled, '#');
        bar.resize(width, '.');
        out_ << fmt::format("\r[{}] {}/{} done, {} failed, {} running, ETA {}\x1b[K", bar, finished, total_,
                            failed_, running, eta)
             << std::flush;
    } else {
        out_ << fmt::format("sweep: {}/{} done, {} failed, {} running, {} elapsed, ETA {}\n", finished,
                            total_, failed_, running, formatEta(t), eta)
             << std::flush;
    }
}

void Progress::finish() {
    draw(0);
    if (terminal_)
        out_ << '\n' << std::flush;
}

}  // namespace tessim::sweep
