// The configuration reference (docs/config-reference.md): every component model (`impl`) a target
// may use, with the keys its reader asks for, what each holds and in which units, its default and
// its bounds. Written from the readers as they load every shipped target, so it cannot drift.
#pragma once

#include <string>
#include <vector>

#include "sim/config/KeyCatalogue.h"

namespace tessim {

/// The schemas read while every target of configs/targets/ is built (and its DDR presets and units).
std::vector<config::KeyCatalogue::Schema> configSchemas();

/// `tessim list config --reference`: the reference page in Markdown.
std::string configReferenceMarkdown();

}  // namespace tessim
