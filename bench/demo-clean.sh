#!/usr/bin/env bash
# No false alarms: `perflab demo` on a quiet machine must say
# "Measurement: clean". Runs the demo (without its closing A/B) RUNS times
# and counts the clean verdicts; for each noisy one it prints the reason.
# Run it on an otherwise idle machine (a CI runner, a laptop with nothing
# else busy): on a shared one the NOISY verdicts are right.
#
#   bench/demo-clean.sh            # RUNS=5 SECS=10 by default
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
RUNS=${RUNS:-5}
SECS=${SECS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab)

clean=0
for i in $(seq 1 "$RUNS"); do
	line=$("$work/perflab" demo --no-ab --quiet --dir "$work/runs" -d "${SECS}s" | grep -m1 '^Measurement:' || true)
	echo "run $i: $line"
	case $line in
	"Measurement: clean"*) clean=$((clean + 1)) ;;
	esac
done
echo "clean: $clean of $RUNS"
[ "$clean" -eq "$RUNS" ]
