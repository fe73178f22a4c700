#!/usr/bin/env bash
# Profiling overhead: what perflab's profiling costs the service it measures.
# The tolower test service (main.search lowercases 5000 names per request)
# runs under `perflab run --cpus 1`, pinned to core 1 (perflab and its load
# generator to core 0), three ways, interleaved, ROUNDS times each:
#   none   --profiler none
#   pprof  --profiler pprof   (net/http/pprof CPU profile at Go's 100 Hz, plus
#                              the allocs/heap/goroutine snapshots)
#   perf   --profiler perf --perf-hz 99   (perf record -e cpu-clock -g)
# Two loads:
#   rate   a fixed arrival rate (RATE/s, about a quarter of capacity on an idle 2-core machine): the service
#          keeps up in every mode, so the cost shows as CPU ms per request
#          (and as achieved throughput if it did not keep up);
#   max    a closed load (-c 8) at the 1-core budget: the cost shows as lost
#          throughput.
# Prints the medians per mode and the change against `none` in %. The issue's
# target is less than 3%.
#
#   bench/profile-overhead.sh          # ROUNDS=5 SECS=5 RATE=300 by default
#   LOADS=rate bench/profile-overhead.sh   # one of the two loads
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
RATE=${RATE:-300}
read -r -a loads <<<"${LOADS:-rate max}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab && go build -o "$work/tolower" ./testdata/services/tolower)

api=127.0.0.1:18391
pprof=127.0.0.1:18392
url="http://$api/search?q=oak"

# one MODE LOAD: prints "rps cpu_ms_per_request"
one() {
	local mode=$1 load=$2 prof=(--profiler "$1")
	case $mode in
	pprof) prof+=(--pprof "http://$pprof") ;;
	perf) prof+=(--perf-hz 99) ;;
	esac
	local lflags=(-c 8)
	[[ $load == rate ]] && lflags=(--rate "$RATE" -c 8)
	taskset -c 0 "$work/perflab" run --quiet --json --dir "$work/runs" --cpus 1 --warmup 1s -d "${SECS}s" \
		"${lflags[@]}" "${prof[@]}" "$url" -- taskset -c 1 "$work/tolower" -addr "$api" -pprof-addr "$pprof" |
		jq -r '"\(.load.rps) \(.target.cpu_ms_per_request)"'
}

. "$here/measure.sh"

for load in "${loads[@]}"; do
	for ((i = 0; i < ROUNDS; i++)); do
		for mode in none pprof perf; do
			one "$mode" "$load" >>"$work/$load-$mode"
		done
	done
done

printf '%-5s %-6s %12s %10s %14s %10s\n' load mode "median rps" "vs none" "CPU ms/req" "vs none"
for load in "${loads[@]}"; do
	base_rps=$(cut -d' ' -f1 "$work/$load-none" | median)
	base_cpu=$(cut -d' ' -f2 "$work/$load-none" | median)
	for mode in none pprof perf; do
		rps=$(cut -d' ' -f1 "$work/$load-$mode" | median)
		cpu=$(cut -d' ' -f2 "$work/$load-$mode" | median)
		awk -v l="$load" -v m="$mode" -v r="$rps" -v c="$cpu" -v br="$base_rps" -v bc="$base_cpu" \
			'BEGIN {printf "%-5s %-6s %12.1f %+9.2f%% %14.4f %+9.2f%%\n", l, m, r, 100*(r-br)/br, c, 100*(c-bc)/bc}'
	done
done
echo "(${ROUNDS} rounds of ${SECS}s per mode and load; rate load at ${RATE}/s; tolower under --cpus 1 pinned to core 1)"
