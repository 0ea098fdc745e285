#!/usr/bin/env bash
# Replay memory and speed: a large schedule (axpy on the minimal target, 2 elements per op: OPS
# ops, 10^7 by default), run generated, emitted to JSON Lines, then replayed with `run --schedule`
# and `validate --schedule` (and `validate` of the generated stream, whose hazard checks hold
# state that grows with the addresses touched, replayed or not). Prints, per step, peak resident memory and CPU seconds (user +
# system) as `/usr/bin/time -v` reports them, and checks that the replay gives the generated
# run's cycles. The schedule file (≈ 87 B an op: 870 MB for 10^7) goes to TMPDIR and is removed.
#
#   bench/replay_bench.sh [TESSIM]      env: OPS (10000000), VALIDATE (1: also validate)
set -euo pipefail
cd "$(dirname "$0")/.."
TESSIM=${1:-${TESSIM:-build/tessim}}
OPS=${OPS:-10000000}
VALIDATE=${VALIDATE:-1}
[ -x "$TESSIM" ] || { echo "error: $TESSIM is not an executable (build it, or pass its path)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "error: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/tessim-replay-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

args=(--target minimal --workload axpy --set "workload.n=$((2 * OPS))")
schedule="$out/axpy.jsonl"

# measure NAME STDOUT COMMAND...: runs it under /usr/bin/time -v, prints a row.
measure() {
    local name=$1 stdout=$2
    shift 2
    /usr/bin/time -v -o "$out/time" "$@" > "$stdout" 2> "$out/err" || { cat "$out/err" >&2; exit 1; }
    awk -v name="$name" -F': ' '
        /Maximum resident set size/ { rss = $2 / 1024 }
        /User time/ { user = $2 }
        /System time/ { sys = $2 }
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = 0; for (i = 1; i <= n; ++i) wall = wall * 60 + t[i] }
        END { printf "%-30s %12.1f %10.2f %10.2f\n", name, rss, user + sys, wall }' "$out/time"
}

cycles() { grep -m1 '"cycles"' "$1" | tr -dc '0-9'; }

printf '%-30s %12s %10s %10s\n' "axpy, $OPS ops (minimal)" "peak RSS MB" "cpu s" "wall s"
measure "run (generated stream)" "$out/generated.json" "$TESSIM" run "${args[@]}"
measure "emit (JSON Lines)" "$schedule" "$TESSIM" emit "${args[@]}"
measure "run --schedule (replay)" "$out/replayed.json" "$TESSIM" run "${args[@]}" --schedule "$schedule"
if [ "$VALIDATE" = 1 ]; then
    measure "validate (generated stream)" /dev/null "$TESSIM" validate "${args[@]}"
    measure "validate --schedule" /dev/null "$TESSIM" validate "${args[@]}" --schedule "$schedule"
fi
ops=$(($(wc -l < "$schedule") - 1))
printf 'schedule: %d ops, %d MB; cycles generated %s, replayed %s\n' "$ops" \
    $(($(stat -c %s "$schedule") / 1000000)) "$(cycles "$out/generated.json")" "$(cycles "$out/replayed.json")"
[ "$(cycles "$out/generated.json")" = "$(cycles "$out/replayed.json")" ] ||
    { echo "error: the replay's cycles differ from the generated run's" >&2; exit 1; }
