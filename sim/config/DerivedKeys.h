// A report's resolved workload and plan (workload.config, plan.config) hold, beside every key
// that was read, what the kernel derived from them: output shapes, tiles, slices, addresses. Fed
// back as input, those keys are read by nobody. While a DerivedKeys is open on this thread,
// Reader::finish() notes such keys instead of refusing them; settle() then accepts each one that
// the run's own resolved echo holds with the same value, and refuses the others as finish()
// would have (unknown key, did you mean) or, for a derived key given another value, names the
// value the run derives. So a report's resolved configuration runs again as it is.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/ConfigError.h"
#include "sim/config/Node.h"

namespace tessim::config {

class DerivedKeys {
public:
    // Opens on this thread; one opened inside another leaves the notes to the outer one.
    DerivedKeys();
    ~DerivedKeys();
    DerivedKeys(const DerivedKeys&) = delete;
    DerivedKeys& operator=(const DerivedKeys&) = delete;

    // The key each note names must be in one of the resolved echoes (its dotted path from the
    // root of its file) with an equal value: else the first such note's error is thrown.
    void settle(const std::vector<nlohmann::ordered_json>& resolved) const;
    // The run failed before it derived anything: the first unread key with a near spelling among
    // the keys read is the likelier cause, and is thrown; the run's own error otherwise.
    void throwFirstNoted() const;

    // For Reader::finish(): notes an unread key if a DerivedKeys is open (and says whether).
    static bool note(const Node& value, const ConfigError& unknown);

private:
    struct Noted {
        Node value;
        ConfigError unknown;
    };
    bool outermost_ = false;
    std::vector<Noted> noted_;
};

}  // namespace tessim::config
