#include "sim/core/SimulationSetup.h"

#include <cstdlib>

#include <systemc>

namespace tessim {

void initSystemC() {
    static bool done = false;
    if (done)
        return;
    done = true;
    // The banner is printed when the kernel starts; keep stdout clean for machine output.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    // Reports go to stderr through our own handler, never abort the process.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
    sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL, sc_core::SC_THROW);
}

}  // namespace tessim
