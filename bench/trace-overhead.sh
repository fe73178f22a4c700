#!/usr/bin/env bash
# Execution trace overhead: what the default trace slice (and --trace, the
# whole window) costs the service perflab measures. The tolower test
# service (main.search lowercases 5000 names per request) runs under
# `perflab run --cpus 1 --profiler pprof`, pinned to core 1 (perflab and its
# load generator to core 0), three ways, interleaved, ROUNDS times each:
#   none    --no-trace
#   slice   the default: a Go execution trace of 1-2 s in the window's middle
#   whole   --trace: the whole window traced
# Two loads:
#   rate   a fixed arrival rate (RATE/s, about a quarter of capacity): the
#          cost shows as CPU ms per request and p99;
#   max    a closed load (-c 8) at the 1-core budget: the cost shows as lost
#          throughput, over the window and over the traced seconds alone.
# Prints the medians per mode and the change against `none` in %.
#
#   bench/trace-overhead.sh          # ROUNDS=5 SECS=6 RATE=300 by default
#   LOADS=max bench/trace-overhead.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-6}
RATE=${RATE:-300}
read -r -a loads <<<"${LOADS:-rate max}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab && go build -o "$work/tolower" ./testdata/services/tolower)

api=127.0.0.1:18491
pprof=127.0.0.1:18492
url="http://$api/search?q=oak"

# one MODE LOAD: prints "rps cpu_ms_per_request p99_ms slice_rps", slice_rps
# being the requests per second over the seconds the slice mode traces
# (seconds 2 and 3 of a 6 s window), whatever the mode.
one() {
	local mode=$1 load=$2 extra=()
	case $mode in
	none) extra=(--no-trace) ;;
	whole) extra=(--trace) ;;
	esac
	local lflags=(-c 8)
	[[ $load == rate ]] && lflags=(--rate "$RATE" -c 8)
	taskset -c 0 "$work/perflab" run --quiet --json --dir "$work/runs" --cpus 1 --warmup 1s -d "${SECS}s" \
		--profiler pprof --pprof "http://$pprof" "${extra[@]}" "${lflags[@]}" "$url" -- \
		taskset -c 1 "$work/tolower" -addr "$api" -pprof-addr "$pprof" |
		jq -r '[.load.series[] | select(.t >= 2 and .t < 4) | .requests] as $s |
			"\(.load.rps) \(.target.cpu_ms_per_request) \(.load.latency_ms.p99) \(($s | add) / ($s | length))"'
}

. "$here/measure.sh"
col() { cut -d' ' -f"$1" "$2" | median; }

for load in "${loads[@]}"; do
	for ((i = 0; i < ROUNDS; i++)); do
		for mode in none slice whole; do
			one "$mode" "$load" >>"$work/$load-$mode"
		done
	done
done

printf '%-5s %-6s %10s %8s %12s %8s %9s %8s %12s %8s\n' load mode rps "vs none" "CPU ms/req" "vs none" "p99 ms" "vs none" "traced rps" "vs none"
for load in "${loads[@]}"; do
	b1=$(col 1 "$work/$load-none") b2=$(col 2 "$work/$load-none") b3=$(col 3 "$work/$load-none") b4=$(col 4 "$work/$load-none")
	for mode in none slice whole; do
		f="$work/$load-$mode"
		awk -v l="$load" -v m="$mode" -v r="$(col 1 "$f")" -v c="$(col 2 "$f")" -v p="$(col 3 "$f")" -v s="$(col 4 "$f")" \
			-v b1="$b1" -v b2="$b2" -v b3="$b3" -v b4="$b4" \
			'BEGIN {printf "%-5s %-6s %10.1f %+7.2f%% %12.4f %+7.2f%% %9.2f %+7.1f%% %12.1f %+7.2f%%\n", l, m, r, 100*(r-b1)/b1, c, 100*(c-b2)/b2, p, 100*(p-b3)/b3, s, 100*(s-b4)/b4}'
	done
done
echo "(${ROUNDS} rounds of ${SECS}s per mode and load; rate load at ${RATE}/s; tolower under --cpus 1 pinned to core 1;"
echo " traced rps: requests/s over seconds 2-4 of the window, which the slice mode traces)"
