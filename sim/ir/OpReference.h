// The JSON Lines fields of each op kind, from its table row, and the reference page built from
// them (docs/op-reference.md: `tessim list ops --reference`; a test fails when it is stale).
#pragma once

#include <string>
#include <vector>

#include "sim/ir/OpTable.h"

namespace tessim {

struct OpField {
    std::string name;
    std::string type;      // "integer", "number", "boolean", "string", "register", "memory", ...
    std::string presence;  // "required", "optional", or "default <value>"
    std::string meaning;
    // A valid value as JSON text, for tests; "$mem" and "$group" stand for a memory and a
    // multicast group of the target.
    std::string sample;
};

// Every field an op line of this kind may hold, besides "engine", "op" and "bundle".
std::vector<OpField> opFields(const OpDescriptor& d);

// The reference page: every kind in the table with its class, fields, footprint and timing.
std::string opReferenceMarkdown();

std::string_view opClassName(OpClass c);

}  // namespace tessim
