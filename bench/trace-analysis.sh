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

# measure NAME CMD...: runs CMD $runs times, prints median wall seconds and max RSS kB.
measure() {
	name=$1
	shift
	: >"$dir/$name.times"
	i=0
	while [ $i -lt $runs ]; do
		/usr/bin/time -v "$@" >/dev/null 2>"$dir/time.out"
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.out" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.out")
		echo "$wall $rss" >>"$dir/$name.times"
		i=$((i + 1))
	done
	w=$(cut -d' ' -f1 "$dir/$name.times" | sort -g | sed -n "$(((runs + 1) / 2))p")
	m=$(cut -d' ' -f2 "$dir/$name.times" | sort -g | sed -n "$(((runs + 1) / 2))p")
	printf '%-32s median wall %6.2fs  median max RSS %8d kB\n' "$name" "$w" "$m"
	echo "$w $m" >"$dir/$name.median"
}

measure "perflab top --wall" "$dir/perflab" top --wall "$trace"
measure "go tool trace -pprof=sched" "$trace_tool" -pprof=sched "$trace"
measure "go tool trace -pprof=net" "$trace_tool" -pprof=net "$trace"
read -r pw pm <"$dir/perflab top --wall.median"
for peer in "go tool trace -pprof=sched" "go tool trace -pprof=net"; do
	read -r gw gm <"$dir/$peer.median"
	awk -v pw="$pw" -v pm="$pm" -v gw="$gw" -v gm="$gm" -v n="$peer" \
		'BEGIN { printf "perflab vs %s: %.1fx faster, %.1fx less memory\n", n, gw/pw, gm/pm }'
done
