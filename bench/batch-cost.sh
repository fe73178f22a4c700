#!/bin/sh
# batch-cost.sh: what measuring a batch program costs. Runs, in turns
# (A B A B ...) so the machine's drift touches both, ROUNDS times: the
# program alone under /usr/bin/time, and the program under `perflab run --
# CMD` (perf at its default rate, the kernel's scheduler tracing, the
# samplers). Prints the medians of
#   - the program's own CPU (user+sys) alone and under perflab: what the
#     measurement adds to the program itself (perf's interrupts, the
#     kernel programs that run when its threads switch);
#   - what perflab counts as its measurement's cost beside the program
#     (run.json's batch.measurement_cost: perf record's CPU, the kernel
#     programs' CPU, perflab's own process while the program ran), in
#     percent of the program's CPU;
#   - perflab's whole process tree (perflab, perf and the program) less
#     the program: everything a run costs, its start (loading the kernel
#     programs) and end (perf script, source lines, run.json) included.
# With FAVOUR=1 (the default, as root) both run in a cgroup of the
# highest CPU weight, so other work on the machine does not stretch them.
#
#   bench/batch-cost.sh                                  # rsscount -mode buggy, ROUNDS=8
#   ROUNDS=12 ARGS="-mode fixed" bench/batch-cost.sh
#   FAVOUR=0 bench/batch-cost.sh
set -eu
ROUNDS=${ROUNDS:-8}
ARGS=${ARGS:--mode buggy}
FAVOUR=${FAVOUR:-1}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
fav=""
cleanup() {
	if [ -n "$fav" ]; then
		echo $$ >/sys/fs/cgroup/cpu/cgroup.procs 2>/dev/null || true
		rmdir "$fav" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/perflab" ./cmd/perflab
go build -o "$work/rsscount" ./testdata/services/rsscount
if [ "$FAVOUR" = 1 ] && [ -w /sys/fs/cgroup/cpu ]; then
	fav=/sys/fs/cgroup/cpu/batch-cost-$$
	mkdir "$fav"
	echo 262144 >"$fav/cpu.shares"
	echo $$ >"$fav/cgroup.procs"
fi
# shellcheck disable=SC2086 # ARGS is words
alone() {
	/usr/bin/time -f '%U %S' -o "$work/time.out" "$work/rsscount" $ARGS >/dev/null
	awk '{ printf "%.3f\n", $1 + $2 }' "$work/time.out" >>"$work/alone"
}
# shellcheck disable=SC2086
measured() {
	/usr/bin/time -f '%U %S' -o "$work/time.out" "$work/perflab" run --quiet --json --dir "$work/runs" -- "$work/rsscount" $ARGS >"$work/run.json"
	python3 - "$work/run.json" "$work/time.out" >>"$work/measured" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["batch"]
c = b["measurement_cost"]
u, s = open(sys.argv[2]).read().split()
tree = float(u) + float(s)
print("%.3f %.3f %.3f %.3f %.2f %.3f" % (b["cpu_s"], c["profiler_cpu_s"], c["kernel_cpu_s"], c["perflab_cpu_s"], c["pct"], tree - b["cpu_s"]))
EOF
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ $((r % 2)) = 1 ]; then alone; measured; else measured; alone; fi
	echo "round $r: alone $(tail -1 "$work/alone") s CPU; under perflab (program, perf, kernel, perflab, cost %, whole run less the program) $(tail -1 "$work/measured")"
	r=$((r + 1))
done
median() { cut -d' ' -f"$2" "$1" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
a=$(median "$work/alone" 1)
m=$(median "$work/measured" 1)
awk -v a="$a" -v m="$m" -v n="$ROUNDS" -v perf="$(median "$work/measured" 2)" -v k="$(median "$work/measured" 3)" \
	-v p="$(median "$work/measured" 4)" -v pct="$(median "$work/measured" 5)" -v whole="$(median "$work/measured" 6)" 'BEGIN {
	printf "medians of %d rounds: the program'"'"'s CPU alone %.3f s, under perflab %.3f s (%+.1f%%)\n", n, a, m, 100 * (m / a - 1)
	printf "measurement beside it: perf %.3f s, kernel tracing %.3f s, perflab %.3f s: %.1f%% of its CPU\n", perf, k, p, pct
	printf "the whole run less the program: %.3f s (%.1f%% of its CPU; start and end included)\n", whole, 100 * whole / m
}'
