// SystemC kernel set-up that must happen once per process, before any sc_time exists.
#pragma once

namespace tessim {

// 1 ps resolution, no copyright banner on stdout, warnings that cannot concern tessim silenced.
void initSystemC();

}  // namespace tessim
