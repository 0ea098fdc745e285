#!/usr/bin/env bash
# Sweep benchmark: 1,000-point `tessim sweep`s on the minimal target (axpy, tiny points: the cost is
# overhead) and, when the build has it, the NPU (ResNet-18 layer3 over SRAM size × strategy × tile
# height), with the per-point overhead split into process start, one small run (config load,
# elaboration, simulation, report) and the sweep's own bookkeeping (fork/exec, output capture,
# JSON parse, fsync'd rows).
# Each figure is the best of REPEAT tries, since other work on the machine only adds noise.
#
#   bench/sweep_bench.sh [TESSIM]     env: POINTS (1000), JOBS (all cores), REPEAT (3),
#                                          SCALING="1 2 4 8 16" adds a speed-up table
set -euo pipefail

TESSIM=${1:-${TESSIM:-build/tessim}}
POINTS=${POINTS:-1000}
JOBS=${JOBS:-$(nproc)}
REPEAT=${REPEAT:-3}
SCALING=${SCALING:-}
[ -x "$TESSIM" ] || { echo "error: $TESSIM is not an executable (build it, or pass its path)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tessim-sweep-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Seconds that "$@" takes, best of REPEAT.
best() {
    local best_s="" a b s
    for _ in $(seq "$REPEAT"); do
        a=$EPOCHREALTIME
        "$@"
        b=$EPOCHREALTIME
        s=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.6f", b - a }')
        if [ -z "$best_s" ] || awk -v s="$s" -v m="$best_s" 'BEGIN { exit !(s < m) }'; then best_s=$s; fi
    done
    echo "$best_s"
}
per_ms() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.2f", s * 1000 / n }'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }

# workload.n = 1024, 1032, ...: small points, so overheads dominate.
sweep_file() {  # $1 = file, $2 = number of points
    cat >"$1" <<YAML
name: bench
base: {target: minimal, workload: axpy}
grid:
  workload.n: {from: 1024, to: $((1024 + 8 * ($2 - 1))), step: 8}
metrics: [seconds, cycles, energy_j.total, traffic_bytes.ddr.read]
YAML
}
npu_sweep_file() {  # 48 SRAM sizes × 3 strategies × 7 tile heights = 1008 points
    cat >"$1" <<YAML
name: bench-npu
base: {target: npu, workload: resnet18-layer3}
grid:
  target.sram.size: {from: 256 KiB, to: 4 MiB, count: 48, log: true, round: 4 KiB}
  plan.strategy: [naive, static-single, double-buffer]
  plan.tile_h: [1, 2, 3, 4, 5, 7, 14]
metrics: [seconds, cycles, energy_j.total, traffic_bytes.ddr.read]
YAML
}
versions() { for _ in $(seq 50); do "$TESSIM" --version >/dev/null; done; }
runs() {  # $1 = count
    for i in $(seq 0 $(($1 - 1))); do
        "$TESSIM" run --target minimal --workload axpy --set workload.n=$((1024 + 8 * i)) \
            --format json >/dev/null
    done
}
sweep() {  # $1 = file, $2 = jobs
    rm -rf "$work/out"
    "$TESSIM" sweep "$1" --jobs "$2" --out "$work/out" >"$work/sweep.log" 2>&1 || true
}

sweep_file "$work/small.yaml" 100
sweep_file "$work/bench.yaml" "$POINTS"
start_ms=$(per_ms "$(best versions)" 50)
run_ms=$(per_ms "$(best runs 100)" 100)
sweep1_ms=$(per_ms "$(best sweep "$work/small.yaml" 1)" 100)
total_s=$(best sweep "$work/bench.yaml" "$JOBS")
rows=$(($(wc -l <"$work/out/results.csv") - 1))
ok=$(grep -c ',ok,' "$work/out/results.csv" || true)
if "$TESSIM" list targets | grep -q '^npu '; then
    npu_sweep_file "$work/npu.yaml"
    npu_s=$(REPEAT=1 best sweep "$work/npu.yaml" "$JOBS")
    npu_rows=$(($(wc -l <"$work/out/results.csv") - 1))
    npu_ok=$(grep -c ',ok,' "$work/out/results.csv" || true)
fi

echo "tessim sweep benchmark: minimal target, axpy, $(nproc) cores, best of $REPEAT"
echo "  process start (tessim --version)                  $start_ms ms"
echo "  one small point (tessim run, n ~ 1 Ki)            $run_ms ms  (+$(minus "$run_ms" "$start_ms") ms over process start: config load, elaboration, simulation, report)"
echo "  sweep bookkeeping per point (--jobs 1 vs a loop)  $(minus "$sweep1_ms" "$run_ms") ms  ($sweep1_ms vs $run_ms ms/point)"
printf "  %d-point sweep, --jobs %d                       %.2f s total, %s ms/point wall, %d rows (%d ok)\n" \
    "$POINTS" "$JOBS" "$total_s" "$(per_ms "$total_s" "$POINTS")" "$rows" "$ok"
if [ -n "${npu_s:-}" ]; then
    printf "  %d-point NPU sweep (resnet18-layer3), --jobs %d  %.2f s total, %s ms/point wall, %d ok\n" \
        "$npu_rows" "$JOBS" "$npu_s" "$(per_ms "$npu_s" "$npu_rows")" "$npu_ok"
fi

if [ -n "$SCALING" ]; then
    echo "  scaling ($POINTS points):"
    base=""
    for j in $SCALING; do
        s=$(best sweep "$work/bench.yaml" "$j")
        [ -z "$base" ] && base=$s
        printf "    --jobs %-3d %7.2f s   speed-up %.2f\n" "$j" "$s" "$(awk -v a="$base" -v b="$s" 'BEGIN { print a / b }')"
    done
fi
