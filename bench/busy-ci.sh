#!/usr/bin/env bash
# busy-ci.sh: a test command on a busy machine, to see whether the tests
# one changed hold beside other work. Runs COMMAND ROUNDS times in a row
# (default 3) with SPINNERS CPU-bound processes (default 2) running beside
# it the whole time, and prints pass or fail and the time of each round,
# then the tally. Exits 1 when a round failed. Each round's output is kept
# in $OUT (default a temporary directory, printed at the end).
#
# It is a developer's check, not the test of perflab on a busy machine:
# that is TestAcceptanceBusyMachine and TestNoisyMachine (internal/lab),
# which run one service beside two spinners and check what perflab says.
# A test whose main assertion needs a clean machine measures again when
# perflab finds the machine noisy and then fails saying so
# (labtest.Clean): beside the spinners that failure is the expected one;
# any other is a test that does not hold on a busy machine.
#
#   bench/busy-ci.sh go test -p 1 -run 'TestAcceptanceWorkersReplaced' ./internal/lab
#   ROUNDS=1 bench/busy-ci.sh go test -p 1 ./internal/lab/...
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SPINNERS=${SPINNERS:-2}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
# Every round runs every test: a result cached by the go command from the
# round before would pass without having run beside the spinners.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"
cmd=("$@")
if [ ${#cmd[@]} -eq 0 ]; then
  echo "usage: bench/busy-ci.sh COMMAND... (a go test of the packages or tests to check)" >&2
  exit 2
fi

spinners=()
stop() { for p in "${spinners[@]}"; do kill "$p" 2>/dev/null; done; wait "${spinners[@]}" 2>/dev/null; }
trap stop EXIT
for _ in $(seq "$SPINNERS"); do
  sh -c 'while :; do :; done' &
  spinners+=($!)
done
echo "busy-ci: ${cmd[*]}, $ROUNDS round(s) beside $SPINNERS CPU-bound processes (pids ${spinners[*]}) on $(nproc) cores; output in $OUT"

failed=0
for r in $(seq "$ROUNDS"); do
  start=$(date +%s)
  if "${cmd[@]}" >"$OUT/round$r.log" 2>&1; then status=pass; else status=FAIL; failed=$((failed + 1)); fi
  took=$(( $(date +%s) - start ))
  printf 'round %d: %s in %dm%02ds (load average %s)\n' "$r" "$status" $((took / 60)) $((took % 60)) "$(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$status" = FAIL ]; then
    grep -E '^(--- FAIL|FAIL|panic:)' "$OUT/round$r.log" | head -20 | sed 's/^/  /'
  fi
done
echo "busy-ci: $((ROUNDS - failed)) of $ROUNDS round(s) passed"
[ "$failed" -eq 0 ]
