#!/bin/sh
# Benchmark perflab's execution-trace analysis against `go tool trace`'s
# own parse of the same file: a 10 s trace of the demo service at
# saturation (perflab demo --trace), then, 5 runs each, wall time and peak
# memory (max RSS) from /usr/bin/time -v, medians and ratios, of
#   perflab top --wall trace.out          (the time per request by stack)
#   go tool trace -pprof=sched trace.out  (its scheduler-latency profile)
#   go tool trace -pprof=net trace.out    (its network-blocking profile)
# The issue's target: under 2 s and 500 MB for the 10 s trace.
#
#   bench/trace-analysis.sh [seconds]
set -eu
cd "$(dirname "$0")/.."
secs=${1:-10}
runs=5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/perflab" ./cmd/perflab
"$dir/perflab" demo --no-ab --quiet --trace -d "${secs}s" -c 16 --dir "$dir/runs" >/dev/null
trace=$(ls "$dir"/runs/*/profiles/trace.out | head -1)
echo "trace: ${secs}s of the demo at saturation (-c 16), $(stat -c %s "$trace") bytes"
trace_tool=$(go tool -n trace) # the binary `go tool trace` runs, without the go command's startup

. bench/measure.sh

measure "perflab top --wall" "$dir/perflab" top --wall "$trace"
measure "go tool trace -pprof=sched" "$trace_tool" -pprof=sched "$trace"
measure "go tool trace -pprof=net" "$trace_tool" -pprof=net "$trace"
ratio "go tool trace -pprof=sched" "perflab top --wall"
ratio "go tool trace -pprof=net" "perflab top --wall"
