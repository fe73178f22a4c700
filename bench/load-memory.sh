#!/usr/bin/env bash
# Generator memory over a long open-model run: perflab at --rate 10000 for
# MINUTES (default 10) against a Go hello server; prints perflab's RSS every
# minute. No per-request state is kept, so it stays flat; what it holds grows
# only with the peak number of concurrent connections (a slow moment of the
# server makes the open model open more, up to --max-inflight: MAX_INFLIGHT,
# default perflab's 1000).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
MINUTES=${MINUTES:-10}
MAX_INFLIGHT=${MAX_INFLIGHT:-1000}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab && go build -o "$work/hello" ./testdata/services/hello)
taskset -c 1 "$work/hello" -addr 127.0.0.1:18195 -pprof-addr 127.0.0.1:0 >/dev/null 2>&1 & pids+=($!)
sleep 0.5
taskset -c 0 "$work/perflab" load --rate 10000 -d "${MINUTES}m" --max-inflight "$MAX_INFLIGHT" --quiet --json http://127.0.0.1:18195/ > "$work/out.json" & pl=$!
pids+=($pl)
rss() { awk '/VmRSS/ {print $2}' "/proc/$pl/status"; }
sleep 60; r1=$(rss)
echo "RSS at 1 min: $((r1 / 1024)) MiB"
last=$r1
for m in $(seq 2 "$MINUTES"); do sleep 60; last=$(rss 2>/dev/null || echo "$last"); echo "RSS at $m min: $((last / 1024)) MiB"; done
wait "$pl"
python3 - "$work/out.json" "$r1" "$last" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r1, rn = int(sys.argv[2]), int(sys.argv[3])
o = d["open"]
print(f"{d['requests']} requests at {d['rps']:.0f}/s, errors {d['errors']}, up to {o['workers']} connections; "
      f"RSS {r1 // 1024} MiB at 1 min, {rn // 1024} MiB at the end ({100 * (rn / r1 - 1):+.1f}%)")
PY
