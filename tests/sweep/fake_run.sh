#!/bin/sh
# Stand-in for `tessim run ... --format json` in the sweep tests, so they need no simulator:
# workload.n=N prints a report whose numbers depend on N; n=abc fails like a bad --set (exit 2),
# n=hang never finishes, n=crash dies by SIGSEGV; workload.delay=S sleeps S seconds first.
n=1
delay=0
for arg in "$@"; do
    case "$arg" in
        workload.n=*) n="${arg#workload.n=}" ;;
        workload.delay=*) delay="${arg#workload.delay=}" ;;
    esac
done
[ "$delay" != 0 ] && sleep "$delay"
case "$n" in
    hang) exec sleep 100 ;;
    crash) kill -SEGV $$ ;;
    ''|*[!0-9]*)
        echo "<command line>:0:9: error: workload.n: expected an integer, got '$n'" >&2
        exit 2 ;;
esac
cycles=$((n * 3 + 7))
energy=$((1000000 / (n + 1)))
printf '{"schema":"tessim.report/1","cycles":%d,"seconds":%de-9,"stall_fraction":0.25,' "$cycles" "$cycles"
printf '"energy_j":{"total":%de-12},"traffic_bytes":{"ddr":{"read":%d,"write":%d}},' "$energy" "$((n * 8))" "$((n * 4))"
printf '"stats":{"dma":{"bursts":{"value":%d,"unit":"count"}}}}\n' "$n"
