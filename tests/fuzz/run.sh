#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (AddressSanitizer + UndefinedBehaviorSanitizer) and
# runs each for SECONDS (default 60) from the seed corpus in tests/fuzz/corpus/<harness>/:
# yaml (loader, includes, unit parsers), schedule (JSON Lines), scalesim-cfg, scalesim-topology,
# cli (--set assignments and --max-memory), onnx (the ONNX model reader; needs libonnx-dev and
# libprotobuf-dev, skipped without them). The test suite replays the seed corpora (ctest -L fuzz).
# New inputs go to build-fuzz/corpus/ (the repository's seeds are not modified); crashes to
# build-fuzz/crashes/. Usage: tests/fuzz/run.sh [SECONDS] [HARNESS...]; with TESSIM_FUZZ_RUNS=N
# each harness stops after N executions instead (SECONDS still bounds it): the long run is
# TESSIM_FUZZ_RUNS=1000000 tests/fuzz/run.sh 86400 (docs/testing.md).
set -euo pipefail
seconds=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build-fuzz
mkdir -p "$out/crashes" "$out/obj"
cxx=${CXX_FUZZ:-clang++}
sanitizers=(-fsanitize=address,undefined -fno-sanitize-recover=undefined)
flags=(-std=c++17 -O1 -g "${sanitizers[@]}" -I"$root" -DTESSIM_SOURCE_DIR="\"$root\""
    -DONNX_NAMESPACE=onnx -DONNX_ML=1)
declare -A sources=(
    [yaml]="tests/fuzz/YamlLoaderFuzz.cpp"
    [schedule]="tests/fuzz/ScheduleFuzz.cpp sim/ir/OpJsonl.cpp sim/ir/ScheduleFileStream.cpp sim/ir/Op.cpp sim/ir/OpTable.cpp sim/ir/OpSemantics.cpp sim/ir/Int8Dot.cpp sim/ir/Footprint.cpp"
    [scalesim-cfg]="tests/fuzz/ScaleSimConfigFuzz.cpp workloads/scalesim/ScaleSimConfig.cpp"
    [scalesim-topology]="tests/fuzz/ScaleSimTopologyFuzz.cpp workloads/scalesim/ScaleSimTopology.cpp"
    [cli]="tests/fuzz/CommandLineFuzz.cpp sim/core/MemoryLimit.cpp"
    [onnx]="tests/fuzz/OnnxFuzz.cpp workloads/onnx/OnnxReader.cpp workloads/onnx/OnnxLayers.cpp"
)
# Libraries beyond the configuration library's (Debian's ONNX and protobuf, not instrumented).
declare -A libraries=([onnx]="-lonnx -lonnx_proto -lprotobuf")
# Every harness links the configuration library; each source is compiled once.
object() {
    local src=$1 obj=$out/obj/${1//\//_}.o
    if [ ! -f "$obj" ] || [ "$root/$src" -nt "$obj" ]; then
        "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$root/$src" -o "$obj"
    fi
    echo "$obj"
}
config=()
for src in "$root"/sim/config/*.cpp; do
    config+=("$(object "${src#"$root"/}")")
done
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
    harnesses=(yaml schedule scalesim-cfg scalesim-topology cli)
    if [ -f /usr/include/onnx/onnx_pb.h ]; then
        harnesses+=(onnx)
    else
        echo "== onnx: skipped (libonnx-dev and libprotobuf-dev are not installed)"
    fi
fi
status=0
for name in "${harnesses[@]}"; do
    objects=()
    for src in ${sources[$name]}; do
        objects+=("$(object "$src")")
    done
    # shellcheck disable=SC2086 # the library list is split on purpose
    "$cxx" "${flags[@]}" -fsanitize=fuzzer "${objects[@]}" "${config[@]}" -lyaml-cpp -lfmt ${libraries[$name]:-} \
        -o "$out/fuzz_$name"
    mkdir -p "$out/corpus/$name"
    cp -n "$root/tests/fuzz/corpus/$name"/* "$out/corpus/$name/" 2>/dev/null || true
    runs=()
    [ -n "${TESSIM_FUZZ_RUNS:-}" ] && runs=(-runs="$TESSIM_FUZZ_RUNS")
    echo "== $name: ${seconds} s${TESSIM_FUZZ_RUNS:+ or $TESSIM_FUZZ_RUNS executions}"
    start=$SECONDS
    if ! "$out/fuzz_$name" "$out/corpus/$name" "${runs[@]}" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix="$out/crashes/$name-" -print_final_stats=1 2>"$out/$name.log"; then
        status=1
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY" "$out/$name.log" || true
    echo "   $((SECONDS - start)) s"
done
exit $status
