#!/usr/bin/env bash
# What whole native stacks cost: the Rust axum test service
# (testdata/services/axumapp, /summary compiles a Regex per request) built
# the way cargo builds by default (no frame pointers: perf unwinds with
# DWARF, --call-graph dwarf,16384) and with RUSTFLAGS="-C
# force-frame-pointers=yes" (perf walks frame pointers, -g), each under
# `perflab run --cpus 1 --rate RATE` (service on core 1, perflab on core 0)
# with --profiler none and with perflab's default (perf at 99 Hz),
# interleaved, ROUNDS times. Prints per build and mode the medians of: the
# service's CPU per request and its change against none, perf's CPU in the
# window as perflab measures it (profiling.profiler_cpu_s and
# profiler_overhead), and perf's whole CPU: perf record's and perf
# script's (which unwinds the DWARF samples after the window), read from
# a direct recording of the same load under /usr/bin/time.
#
# HZ sets perf's rate (--perf-hz; 99 by default, perflab's): at 999 the
# cost per sample shows above the machine's noise.
#
#   bench/native-stacks.sh          # ROUNDS=5 SECS=5 RATE=100 HZ=99 by default
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
RATE=${RATE:-100}
HZ=${HZ:-99}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/perflab-cargo
for b in default fp; do
	dir=$cache/axumapp
	flags=
	[[ $b == fp ]] && dir=$cache/axumapp-fp flags="-C force-frame-pointers=yes"
	(cd "$root/testdata/services/axumapp" && CARGO_TARGET_DIR=$dir RUSTFLAGS="$flags" cargo build --release --locked --quiet)
	cp "$dir/release/axumapp" "$work/axumapp-$b"
done

. "$here/measure.sh"
api=127.0.0.1:18393
url="http://$api/summary"

# one BUILD MODE: prints "cpu_ms_per_request profiler_cpu_s profiler_overhead"
one() {
	(cd "$root/testdata/services/axumapp" &&
		taskset -c 0 "$work/perflab" run --quiet --json --dir "$work/runs" --cpus 1 --warmup 1s -d "${SECS}s" \
			--rate "$RATE" -c 8 --profiler "$2" --perf-hz "$HZ" "$url" -- taskset -c 1 "$work/axumapp-$1" --addr "$api") |
		jq -r '"\(.target.cpu_ms_per_request) \(.profiling.profiler_cpu_s // 0) \(.profiling.profiler_overhead // 0)"'
}

# direct BUILD CALLGRAPH...: perf record on the service under the same
# load, then perf script; prints "record_cpu_s script_cpu_s samples"
direct() {
	local b=$1
	shift
	taskset -c 1 "$work/axumapp-$b" --addr "$api" >/dev/null &
	local pid=$!
	(taskset -c 0 "$work/perflab" load --quiet --rate "$RATE" -c 8 -d "$((SECS + 2))s" "$url" >/dev/null 2>&1 &)
	sleep 1
	/usr/bin/time -f "%U %S" -o "$work/rec.time" perf record -q -e cpu-clock -c "$((1000000000 / HZ))" "$@" -p "$pid" -o "$work/perf.data" -- sleep "$SECS" 2>/dev/null
	/usr/bin/time -f "%U %S" -o "$work/script.time" perf script -i "$work/perf.data" -F comm,pid,tid,time,period,event,ip,sym,dso,symoff >"$work/script.txt" 2>/dev/null
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	sleep 2
	awk -v s="$(grep -c cpu-clock "$work/script.txt")" 'NR==FNR {r=$1+$2; next} {print r, $1+$2, s}' "$work/rec.time" "$work/script.time"
}

for ((i = 0; i < ROUNDS; i++)); do
	for b in default fp; do
		for mode in none auto; do
			one "$b" "$mode" >>"$work/$b-$mode"
		done
	done
	direct default --call-graph dwarf,16384 >>"$work/direct-default"
	direct fp -g >>"$work/direct-fp"
done

printf '%-8s %-5s %12s %9s %16s %14s %14s %14s %8s\n' build mode "CPU ms/req" "vs none" "perf CPU-s (win)" "of service" "perf record s" "perf script s" samples
for b in default fp; do
	base=$(cut -d' ' -f1 "$work/$b-none" | median)
	for mode in none auto; do
		c=$(cut -d' ' -f1 "$work/$b-$mode" | median)
		p=$(cut -d' ' -f2 "$work/$b-$mode" | median)
		o=$(cut -d' ' -f3 "$work/$b-$mode" | median)
		r=- s=- n=-
		if [[ $mode == auto ]]; then
			r=$(cut -d' ' -f1 "$work/direct-$b" | median)
			s=$(cut -d' ' -f2 "$work/direct-$b" | median)
			n=$(cut -d' ' -f3 "$work/direct-$b" | median)
		fi
		awk -v b="$b" -v m="$mode" -v c="$c" -v bc="$base" -v p="$p" -v o="$o" -v r="$r" -v s="$s" -v n="$n" \
			'BEGIN {printf "%-8s %-5s %12.3f %+8.1f%% %16.3f %13.2f%% %14s %14s %8s\n", b, m, c, 100*(c-bc)/bc, p, 100*o, r, s, n}'
	done
done
echo "(${ROUNDS} rounds of ${SECS}s per build and mode at ${RATE} requests/s, perf at ${HZ} Hz; default: perf --call-graph dwarf,16384; fp: perf -g)"
