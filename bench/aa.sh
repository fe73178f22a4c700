#!/bin/sh
# aa.sh: A/A test of perflab's statistics. Runs `perflab ab` with the same
# build on both sides (the tolower test service, -mode=fixed) REPS times,
# RUNS runs a side, and counts how many metric comparisons were reported
# significant. With nothing changed, at alpha 0.05 the rate should be at
# most about 5%.
#
#   bench/aa.sh                 # REPS=8 RUNS=5, ~5 minutes
#   REPS=20 RUNS=6 bench/aa.sh
set -eu
REPS=${REPS:-8}
RUNS=${RUNS:-5}
DUR=${DUR:-2s}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/perflab" ./cmd/perflab
go build -o "$work/tolower" ./testdata/services/tolower
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
api=127.0.0.1:$(port)
pp=127.0.0.1:$(port)
cmd="$work/tolower -addr $api -pprof-addr $pp -mode=fixed"
total=0
sig=0
rep=1
while [ "$rep" -le "$REPS" ]; do
	"$work/perflab" ab --quiet --json --dir "$work/runs" --runs "$RUNS" -d "$DUR" --warmup 1s --cpus 1 -c 4 \
		--pprof "http://$pp" --base "$cmd" --new "$cmd" "http://$api/search?q=oak" >"$work/aa-$rep.json" 2>"$work/aa-$rep.err" || {
		echo "rep $rep: perflab ab failed:" >&2
		cat "$work/aa-$rep.err" >&2
		exit 1
	}
	n=$(jq '[.metrics[] | select(.p_value != null)] | length' "$work/aa-$rep.json")
	s=$(jq '[.metrics[] | select(.significant)] | length' "$work/aa-$rep.json")
	names=$(jq -r '[.metrics[] | select(.significant) | "\(.name) \(.delta_pct | floor)% p=\(.p_value)"] | join(", ")' "$work/aa-$rep.json")
	echo "rep $rep: $s of $n metrics significant${names:+: $names}"
	total=$((total + n))
	sig=$((sig + s))
	rep=$((rep + 1))
done
echo "A/A: $sig of $total metric comparisons significant ($(awk "BEGIN{printf \"%.1f\", 100*$sig/$total}")%), $REPS reps of $RUNS runs a side"
