#include "analysis/reproduce/PaperArithmetic.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/config/Reader.h"

namespace tessim {

namespace {

// Recursive descent over expression := term (('+'|'-') term)*, term := factor (('*'|'/') factor)*,
// factor := ('-'|'+') factor | number | name '(' args ')' | '(' expression ')'.
class Arithmetic {
public:
    explicit Arithmetic(const std::string& text) : s_(text) {}

    double parse() {
        const double v = expression();
        skip();
        if (i_ != s_.size())
            fail("unexpected '" + s_.substr(i_, 1) + "'");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::invalid_argument(fmt::format("{} at character {} of '{}'", what, i_ + 1, s_));
    }
    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
            ++i_;
    }
    bool take(char c) {
        skip();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    double expression() {
        double v = term();
        for (;;) {
            if (take('+'))
                v += term();
            else if (take('-'))
                v -= term();
            else
                return v;
        }
    }
    double term() {
        double v = factor();
        for (;;) {
            if (take('*'))
                v *= factor();
            else if (take('/'))
                v /= factor();
            else
                return v;
        }
    }
    double factor() {
        if (take('-'))
            return -factor();
        if (take('+'))
            return factor();
        if (take('(')) {
            const double v = expression();
            if (!take(')'))
                fail("expected ')'");
            return v;
        }
        skip();
        if (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_])))
            return call();
        const char* start = s_.c_str() + i_;
        char* end = nullptr;
        const double v = std::strtod(start, &end);
        if (end == start)
            fail(i_ < s_.size() ? "expected a number" : "the expression ends early");
        i_ += static_cast<std::size_t>(end - start);
        return v;
    }
    double call() {
        std::size_t j = i_;
        while (j < s_.size() && std::isalnum(static_cast<unsigned char>(s_[j])))
            ++j;
        const std::string name = s_.substr(i_, j - i_);
        i_ = j;
        if (!take('('))
            fail("expected '(' after " + name);
        std::vector<double> args{expression()};
        while (take(','))
            args.push_back(expression());
        if (!take(')'))
            fail("expected ')'");
        const auto one = [&](double (*f)(double)) {
            if (args.size() != 1)
                fail(name + " takes one argument");
            return f(args[0]);
        };
        if (name == "sqrt")
            return one([](double x) { return std::sqrt(x); });
        if (name == "log2")
            return one([](double x) { return std::log2(x); });
        if (name == "floor")
            return one([](double x) { return std::floor(x); });
        if (name == "ceil")
            return one([](double x) { return std::ceil(x); });
        if (name == "min")
            return *std::min_element(args.begin(), args.end());
        if (name == "max")
            return *std::max_element(args.begin(), args.end());
        fail("unknown function '" + name + "' (sqrt, log2, floor, ceil, min, max)");
    }

    const std::string& s_;
    std::size_t i_ = 0;
};

std::string num(double v) {
    return fmt::format("{:.4g}", v);
}

double evaluated(const config::Reader& r, const std::string& key) {
    double v = 0;
    std::string error;
    const std::string text = r.get<std::string>(key);
    if (!evaluateArithmetic(text, v, error))
        r.fail(key, error);
    if (!std::isfinite(v))
        r.fail(key, fmt::format("'{}' is not a finite number", text));
    return v;
}

}  // namespace

bool evaluateArithmetic(const std::string& expression, double& value, std::string& error) {
    try {
        value = Arithmetic(expression).parse();
        return true;
    } catch (const std::invalid_argument& e) {
        error = e.what();
        return false;
    }
}

std::vector<ConsistencyCheck> readConsistencyChecks(const config::Reader& paper) {
    std::vector<ConsistencyCheck> checks;
    for (const config::Reader& r : paper.children("consistency")) {
        ConsistencyCheck c;
        c.id = r.get<std::string>("id");
        c.what = r.get<std::string>("what");
        c.source = r.get<std::string>("source");
        c.unit = r.get<std::string>("unit", std::string());
        const std::string unit = c.unit.empty() ? "" : " " + c.unit;
        if (r.has("values")) {
            const config::Reader values = r.child("values");
            for (const auto& [name, node] : values.self().entries())
                c.values.emplace_back(name, evaluated(values, name));
            if (c.values.size() < 2)
                r.fail("values", "an agreement needs at least two values");
            const double tolerance = r.get<double>("agree_within", config::Range<double>{0.0, 10.0});
            double lo = c.values.front().second, hi = lo;
            for (const auto& [name, v] : c.values) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            c.stated = hi / lo - 1;
            c.bound = tolerance;
            c.relation = fmt::format("spread ≤ {:.0f} %", 100 * tolerance);
            c.consistent = lo > 0 && c.stated <= tolerance;
            std::string listed;
            for (const auto& [name, v] : c.values)
                listed += fmt::format("{}{} {}{}", listed.empty() ? "" : ", ", name, num(v), unit);
            c.note = fmt::format("{}: {}; max / min − 1 = {:.1f} %, allowed {:.0f} %", c.what, listed,
                                 100 * c.stated, 100 * tolerance);
        } else {
            c.stated = evaluated(r, "value");
            const bool atMost = r.has("at_most");
            if (atMost == r.has("at_least"))
                r.fail("value", "a check gives `values` and `agree_within`, or `value` and one of "
                                "`at_most` and `at_least`");
            c.bound = evaluated(r, atMost ? "at_most" : "at_least");
            c.relation = fmt::format("{} {}{}", atMost ? "≤" : "≥", num(c.bound), unit);
            c.consistent = atMost ? c.stated <= c.bound : c.stated >= c.bound;
            c.note = fmt::format("{}: stated {}{}, {} {} = {}{}", c.what, num(c.stated), unit,
                                 atMost ? "at most" : "at least",
                                 r.get<std::string>(atMost ? "at_most" : "at_least"), num(c.bound), unit);
        }
        c.verdict = c.consistent ? "consistent" : "inconsistent";
        c.note += " (" + c.source + ")";
        r.finish();
        checks.push_back(std::move(c));
    }
    return checks;
}

}  // namespace tessim
