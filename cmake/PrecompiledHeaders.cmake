# Precompiled headers: SystemC/TLM, nlohmann-json, fmt and the standard library are parsed once
# per build instead of once per source file, which is most of a clean build's time on two cores.
# The library targets share one header (they compile with the same flags); the test binaries
# share a second one that adds GoogleTest. Off when ccache drives the build (ccache cannot reuse
# a result compiled against a precompiled header without extra sloppiness settings).
option(TESSIM_PRECOMPILED_HEADERS "Precompile the heavy third-party headers" ON)
if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
    set(TESSIM_PRECOMPILED_HEADERS OFF)
endif()

set(TESSIM_PCH_HEADERS
    <algorithm> <cmath> <cstdint> <filesystem> <fstream> <map> <memory> <optional> <set>
    <sstream> <string> <vector>
    <fmt/format.h> <nlohmann/json.hpp> <systemc> <tlm>)

# The first library target given owns the precompiled header; the others reuse it.
function(tessim_precompile_libraries owner)
    if(NOT TESSIM_PRECOMPILED_HEADERS)
        return()
    endif()
    target_precompile_headers(${owner} PRIVATE ${TESSIM_PCH_HEADERS})
    foreach(target ${ARGN})
        target_precompile_headers(${target} REUSE_FROM ${owner})
    endforeach()
endfunction()

# The test binaries: one of them owns a header with GoogleTest added, the rest reuse it.
function(tessim_precompile_tests owner)
    if(NOT TESSIM_PRECOMPILED_HEADERS)
        return()
    endif()
    target_precompile_headers(${owner} PRIVATE ${TESSIM_PCH_HEADERS} <gtest/gtest.h> <gmock/gmock.h>)
    foreach(target ${ARGN})
        target_precompile_headers(${target} REUSE_FROM ${owner})
    endforeach()
endfunction()
