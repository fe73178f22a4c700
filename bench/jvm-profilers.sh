#!/usr/bin/env bash
# What profiling a JVM costs the service: testdata/services/javapattern
# (--mode buggy: a Pattern compiled per request) under `perflab run --cpus 1
# -c 4`, service on core 1 and perflab on core 0, in each of MODES, ROUNDS
# times, interleaved:
#   none-nofp  --profiler none --no-perf-map: the JVM as the user starts it
#   none       --profiler none: with the -XX:+PreserveFramePointer perflab adds
#   perf       --profiler perf (frame pointers, jcmd Compiler.perfmap)
#   async      --profiler async-profiler (its agent, loaded through jcmd)
# Prints, per mode, the medians of the service's CPU per request
# (target.cpu_ms_per_request: the agent samples inside the JVM, so its
# cost is there), its ratio to none's and to none-nofp's (median of the
# rounds' pairs), perflab's reading of the profilers' own CPU in the window
# (profiling.profiler_cpu_s, in % of the service's CPU), and the profile's
# coverage of the measured CPU.
#
#   bench/jvm-profilers.sh                  # ROUNDS=5 SECS=10 WARMUP=15
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-10}
WARMUP=${WARMUP:-15}
read -r -a modes <<<"${MODES:-none-nofp none perf async}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab)
javac -d "$work/classes" "$root/testdata/services/javapattern/Server.java"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for round in $(seq "$ROUNDS"); do
	# Each round starts with the next mode: none goes first in no more rounds than the others.
	for i in "${!modes[@]}"; do
		mode=${modes[$(((i + round) % ${#modes[@]}))]}
		case $mode in
		none-nofp) extra=(--profiler none --no-perf-map) ;;
		none) extra=(--profiler none) ;;
		perf) extra=(--profiler perf) ;;
		async) extra=(--profiler async-profiler) ;;
		esac
		"$work/perflab" run --quiet --json --dir "$work/runs" --cpus 1 --service-cpus 1 --load-cpus 0 -c 4 \
			--no-trace --warmup "${WARMUP}s" -d "${SECS}s" "${extra[@]}" "http://127.0.0.1:$port/summarize?doc=5" \
			-- java -cp "$work/classes" Server --addr "127.0.0.1:$port" --mode buggy >"$work/run.json" || true
		python3 - "$round" "$mode" "$work/run.json" >>"$work/rows" <<'PY'
import json, sys
rnd, mode, path = sys.argv[1:4]
r = json.load(open(path))
t, p = r.get("target") or {}, r.get("profiling") or {}
svc = t.get("cpu_seconds") or 0
prof = p.get("profiler_cpu_s") or 0
print(rnd, mode, t.get("cpu_ms_per_request", 0), 100 * prof / svc if svc else 0, p.get("coverage", 0))
PY
	done
done
python3 - "$work/rows" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for rnd, mode, cpu, prof, cov in rows:
    by.setdefault(mode, {})[rnd] = (float(cpu), float(prof), float(cov))
def ratio(mode, base):
    if base not in by:
        return float("nan")
    pairs = [by[mode][r][0] / by[base][r][0] for r in by[mode] if r in by[base] and by[base][r][0] > 0]
    return st.median(pairs) if pairs else float("nan")
print(f"{'mode':10} {'CPU ms/req':>10} {'vs none':>8} {'vs nofp':>8} {'profiler %':>10} {'coverage':>8}")
for mode, rs in by.items():
    v = list(rs.values())
    print(f"{mode:10} {st.median(x[0] for x in v):10.3f} {ratio(mode, 'none'):8.3f} {ratio(mode, 'none-nofp'):8.3f} "
          f"{st.median(x[1] for x in v):10.2f} {st.median(x[2] for x in v):8.2f}")
PY
