#!/usr/bin/env bash
# Open-model accuracy and tail truth, side by side in one run.
#  1. --rate 5000 for 10s against a Go hello server (server on core 1,
#     perflab on core 0): achieved rate vs target (goal: within 1%) and the
#     send lag p99 (goal: < 1 ms).
#  2. A server that stalls every request for 500 ms once every 5 s, at
#     --rate 1000 for 15 s: perflab's p99 against the true p99 of an open
#     arrival process (10% of arrivals wait U(0,500ms): p99 = 450 ms, goal:
#     within 10%), and hey -c 10 on the same server, which understates it
#     (coordinated omission). Also vegeta at the same rate, for reference.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
"$here/peers.sh" >/dev/null
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab && go build -o "$work/hello" ./testdata/services/hello \
  && go build -o "$work/stall" ./testdata/services/stall)
taskset -c 1 "$work/hello" -addr 127.0.0.1:18191 -pprof-addr 127.0.0.1:0 >/dev/null 2>&1 & pids+=($!)
sleep 0.5

echo "1. Open-model accuracy: --rate 5000 -d 10s"
taskset -c 0 "$work/perflab" load --rate 5000 -d 10s --quiet --json http://127.0.0.1:18191/ > "$work/rate.json"
python3 - "$work/rate.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); o = d["open"]
achieved = d["requests"] / d["duration_s"]
print(f"   scheduled {o['scheduled']}, completed {d['requests']} in {d['duration_s']:.3f}s, errors {d['errors']}")
print(f"   achieved {achieved:.1f}/s of 5000/s: {100 * (achieved / 5000 - 1):+.2f}% (goal within 1%)")
print(f"   send lag p50 {o['send_lag_ms']['p50']:.3f} ms, p99 {o['send_lag_ms']['p99']:.3f} ms, max {o['send_lag_ms']['max']:.3f} ms (goal p99 < 1 ms); late {o['late']}")
PY

echo "2. Tail truth: a 500 ms stall every 5 s, 1000 arrivals/s for 15 s (true p99 ~ 450 ms)"
run_stall() {
  "$work/stall" -addr 127.0.0.1:18192 -pprof-addr 127.0.0.1:0 >/dev/null 2>&1 & local pid=$!
  sleep 0.5
  "$@"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
run_stall "$work/perflab" load --rate 1000 -d 15s --quiet --json http://127.0.0.1:18192/ > "$work/stall.json"
run_stall hey -c 10 -z 15s http://127.0.0.1:18192/ > "$work/hey.txt"
run_stall bash -c "echo 'GET http://127.0.0.1:18192/' | '$here/.bin/vegeta' attack -rate 1000 -duration 15s | '$here/.bin/vegeta' report -type json" > "$work/vegeta.json"
python3 - "$work/stall.json" "$work/hey.txt" "$work/vegeta.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); p = d["latency_ms"]["p99"]
hey = open(sys.argv[2]).read(); hp = float(re.search(r"99% in ([\d.]+) secs", hey).group(1)) * 1000
v = json.load(open(sys.argv[3])); vp = v["latencies"]["99th"] / 1e6
print(f"   perflab --rate 1000: p99 {p:.1f} ms ({100 * (p / 450 - 1):+.1f}% vs 450 ms; goal within 10%)")
print(f"   hey -c 10:           p99 {hp:.1f} ms ({100 * (hp / 450 - 1):+.1f}% vs 450 ms)")
print(f"   vegeta -rate 1000:   p99 {vp:.1f} ms ({100 * (vp / 450 - 1):+.1f}% vs 450 ms)")
PY
