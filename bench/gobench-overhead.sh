#!/bin/sh
# gobench-overhead.sh: what `perflab bench` adds to `go test -bench` with
# the same -count. Runs, in turns so the machine's drift touches all three,
# ROUNDS times: go test -run '^$' -bench . -benchmem -count COUNT, perflab
# bench --no-profiles (the timed runs only: build, go list, parsing,
# statistics, the run directory) and perflab bench with its profile runs;
# prints each one's median wall time and the ratios to go test's.
#
#   bench/gobench-overhead.sh                         # testdata/bench/pair, ROUNDS=5 COUNT=6 BENCHTIME=1s
#   PKG=./internal/analysis BENCH=TopFile bench/gobench-overhead.sh
set -eu
ROUNDS=${ROUNDS:-5}
COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-1s}
BENCH=${BENCH:-.}
cd "$(dirname "$0")/.."
root=$(pwd)
PKGDIR=${PKGDIR:-$root/testdata/bench/pair}
PKG=${PKG:-.}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/perflab" ./cmd/perflab
cd "$PKGDIR"
go test -run '^$' -bench "$BENCH" -benchtime 1x "$PKG" >/dev/null # warm the build cache for all three
wall() { # wall NAME CMD...: the command's wall seconds, appended to $work/NAME
	name=$1
	shift
	start=$(date +%s.%N)
	"$@" >"$work/$name.out" 2>&1 || {
		echo "$name failed:" >&2
		cat "$work/$name.out" >&2
		exit 1
	}
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }' >>"$work/$name"
}
gotest() { go test -run '^$' -bench "$BENCH" -benchmem -count "$COUNT" -benchtime "$BENCHTIME" "$PKG"; }
timed() { "$work/perflab" bench --quiet --no-profiles --dir "$work/runs" -bench "$BENCH" -count "$COUNT" -benchtime "$BENCHTIME" "$PKG"; }
profiled() { "$work/perflab" bench --quiet --dir "$work/runs" -bench "$BENCH" -count "$COUNT" -benchtime "$BENCHTIME" "$PKG"; }
r=1
while [ "$r" -le "$ROUNDS" ]; do
	case $((r % 3)) in
	0) wall gotest gotest; wall timed timed; wall profiled profiled ;;
	1) wall timed timed; wall profiled profiled; wall gotest gotest ;;
	2) wall profiled profiled; wall gotest gotest; wall timed timed ;;
	esac
	echo "round $r: go test $(tail -1 "$work/gotest")s, perflab bench --no-profiles $(tail -1 "$work/timed")s, perflab bench $(tail -1 "$work/profiled")s"
	r=$((r + 1))
done
median() { sort -g "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
g=$(median "$work/gotest")
t=$(median "$work/timed")
p=$(median "$work/profiled")
awk -v g="$g" -v t="$t" -v p="$p" -v n="$ROUNDS" -v c="$COUNT" 'BEGIN {
	printf "medians of %d rounds, -count %d: go test %.2fs, perflab bench --no-profiles %.2fs (%+.1f%%), perflab bench %.2fs (%+.1f%%, profile runs included)\n",
		n, c, g, t, 100 * (t / g - 1), p, 100 * (p / g - 1)
}'
