#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (AddressSanitizer + UndefinedBehaviorSanitizer) and
# runs each for SECONDS (default 60) from the seed corpus in tests/fuzz/corpus/<harness>/:
# yaml (loader, includes, unit parsers), schedule (JSON Lines), scalesim-cfg, scalesim-topology,
# cli (--set assignments and --max-memory). The test suite replays the seed corpora (ctest -L fuzz).
# New inputs go to build-fuzz/corpus/ (the repository's seeds are not modified); crashes to
# build-fuzz/crashes/. Usage: tests/fuzz/run.sh [SECONDS]
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build-fuzz
mkdir -p "$out/crashes"
cxx=${CXX_FUZZ:-clang++}
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$root"
       -DTESSIM_SOURCE_DIR="\"$root\"")
config=("$root"/sim/config/*.cpp)
declare -A sources=(
    [yaml]="$root/tests/fuzz/YamlLoaderFuzz.cpp"
    [schedule]="$root/tests/fuzz/ScheduleFuzz.cpp $root/sim/ir/OpJsonl.cpp $root/sim/ir/Op.cpp"
    [scalesim-cfg]="$root/tests/fuzz/ScaleSimConfigFuzz.cpp $root/workloads/scalesim/ScaleSimConfig.cpp"
    [scalesim-topology]="$root/tests/fuzz/ScaleSimTopologyFuzz.cpp $root/workloads/scalesim/ScaleSimTopology.cpp"
    [cli]="$root/tests/fuzz/CommandLineFuzz.cpp $root/sim/core/MemoryLimit.cpp"
)
status=0
harnesses=(yaml schedule scalesim-cfg scalesim-topology cli)
for name in "${harnesses[@]}"; do
    # shellcheck disable=SC2086
    "$cxx" "${flags[@]}" ${sources[$name]} "${config[@]}" -lyaml-cpp -lfmt -o "$out/fuzz_$name"
    mkdir -p "$out/corpus/$name"
    cp -n "$root/tests/fuzz/corpus/$name"/* "$out/corpus/$name/" 2>/dev/null || true
    echo "== $name: ${seconds} s"
    if ! "$out/fuzz_$name" "$out/corpus/$name" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix="$out/crashes/$name-" -print_final_stats=1 2>"$out/$name.log"; then
        status=1
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY" "$out/$name.log" || true
done
exit $status
