#!/usr/bin/env bash
# busy-ci.sh: the test suite on a busy machine. Runs a command (default
# .ci/test, the whole CI run) ROUNDS times in a row (default 3) with
# SPINNERS CPU-bound processes (default 2) running beside it the whole
# time, and prints pass or fail and the time of each round, then the
# tally. Exits 1 when a round failed. Each round's output is kept in
# $OUT (default a temporary directory, printed at the end).
#
#   bench/busy-ci.sh                                   # .ci/test, 3 rounds, 2 spinners
#   ROUNDS=1 bench/busy-ci.sh go test -p 1 ./internal/lab/...   # one package beside the spinners
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
[ ${#cmd[@]} -eq 0 ] && cmd=(.ci/test)

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
