#!/bin/sh
# gobench-overhead.sh: what `perflab bench` adds to `go test -bench` with
# the same -count. Runs, in turns so the machine's drift touches all three,
# ROUNDS times: go test -run '^$' -bench . -benchmem -count COUNT, perflab
# bench --no-profiles (the timed runs only: build, go list, parsing,
# statistics, the run directory) and perflab bench with its profile runs;
# prints the medians of each one's wall time and CPU time (user+sys of the
# whole process tree: steadier than wall time on a shared machine) and
# their ratios to go test's, and the median of each round's own ratio
# (the rounds pair the commands run seconds apart: steadier when the
# machine's speed drifts from round to round).
#
#   bench/gobench-overhead.sh                         # testdata/bench/pair, ROUNDS=5 COUNT=6 BENCHTIME=1s
#   ROUNDS=15 BENCHTIME=200ms bench/gobench-overhead.sh
#   PKGDIR=. PKG=./internal/analysis BENCH=TopFile bench/gobench-overhead.sh
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
wall() { # wall NAME CMD...: the command's wall seconds and CPU seconds (user+sys, children included), appended to $work/NAME
	name=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$work/time.out" "$@" >"$work/$name.out" 2>&1 || {
		echo "$name failed:" >&2
		cat "$work/$name.out" >&2
		exit 1
	}
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/time.out" >>"$work/$name"
}
gotest() { wall gotest go test -run '^$' -bench "$BENCH" -benchmem -count "$COUNT" -benchtime "$BENCHTIME" "$PKG"; }
timed() { wall timed "$work/perflab" bench --quiet --no-profiles --dir "$work/runs" -bench "$BENCH" -count "$COUNT" -benchtime "$BENCHTIME" "$PKG"; }
profiled() { wall profiled "$work/perflab" bench --quiet --dir "$work/runs" -bench "$BENCH" -count "$COUNT" -benchtime "$BENCHTIME" "$PKG"; }
r=1
while [ "$r" -le "$ROUNDS" ]; do
	case $((r % 3)) in
	0) gotest; timed; profiled ;;
	1) timed; profiled; gotest ;;
	2) profiled; gotest; timed ;;
	esac
	echo "round $r (wall s, CPU s): go test $(tail -1 "$work/gotest"), perflab bench --no-profiles $(tail -1 "$work/timed"), perflab bench $(tail -1 "$work/profiled")"
	r=$((r + 1))
done
median() { cut -d' ' -f"$2" "$1" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for col in 1 2; do
	what=wall
	[ "$col" = 2 ] && what=CPU
	awk -v g="$(median "$work/gotest" $col)" -v t="$(median "$work/timed" $col)" -v p="$(median "$work/profiled" $col)" \
		-v n="$ROUNDS" -v c="$COUNT" -v w="$what" 'BEGIN {
		printf "%s, medians of %d rounds, -count %d: go test %.2fs, perflab bench --no-profiles %.2fs (%+.1f%%), perflab bench %.2fs (%+.1f%%, profile runs included)\n",
			w, n, c, g, t, 100 * (t / g - 1), p, 100 * (p / g - 1)
	}'
done
paired() { paste -d' ' "$work/gotest" "$work/$1" | awk -v c="$2" '{ print $(c + 2) / $c }' | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for col in 1 2; do
	what=wall
	[ "$col" = 2 ] && what=CPU
	awk -v t="$(paired timed $col)" -v p="$(paired profiled $col)" -v w="$what" 'BEGIN {
		printf "%s, median of the ratios within each round: perflab bench --no-profiles %+.1f%%, perflab bench %+.1f%%\n", w, 100 * (t - 1), 100 * (p - 1)
	}'
done
