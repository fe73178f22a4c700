#!/usr/bin/env bash
# The service's output drain: does perflab slow a service that writes a lot
# to stdout? The fmtprint test service prints ~370 KB per request (-stdout
# -kib 100, the case study's debug print of a whole response); it runs under
# perflab run twice per round, interleaved: (a) its stdout and stderr drained
# by perflab into target.log, (b) redirected to /dev/null inside the
# service's own shell. Prints each mode's median requests/s and CPU
# ms/request, the ratio a/b (the acceptance bound is within 5%), and
# perflab's own CPU (user+sys of the perflab process, load generator
# included, the service not) in each mode: the difference is the drain's.
#
#   bench/log-drain.sh                       # ROUNDS=5 SECS=5, --cpus 1, -c 4
#   PERFLAB=/path/to/perflab bench/log-drain.sh   # another perflab build
#   ISOLATE="--service-cpus 1 --load-cpus 0" bench/log-drain.sh   # a CPU each
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/fmtprint" ./testdata/services/fmtprint)
perflab=${PERFLAB:-}
if [ -z "$perflab" ]; then
  (cd "$root" && go build -o "$work/perflab" ./cmd/perflab)
  perflab=$work/perflab
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
svc="$work/fmtprint -addr 127.0.0.1:$port -pprof-addr 127.0.0.1:0 -stdout -kib 100"

# run MODE: prints "rps cpu_ms_per_request perflab_cpu_s". perflab's own
# CPU is read from /proc/PID/stat (utime+stime, not its children's) every
# 0.1 s until it exits: /usr/bin/time would add the service's CPU.
run() {
  local mode=$1 dir=$work/runs-$1
  local cmd=(sh -c "exec $svc")
  [ "$mode" = devnull ] && cmd=(sh -c "exec $svc >/dev/null 2>&1")
  # shellcheck disable=SC2086 # ISOLATE is a list of flags
  "$perflab" run --quiet --json --dir "$dir" --cpus 1 -c 4 -d "${SECS}s" --warmup 1s --profiler none ${ISOLATE:-} \
    "http://127.0.0.1:$port/file?name=3" -- "${cmd[@]}" >"$work/run.json" &
  local pid=$! ticks=0 t
  while t=$(awk '{print $14+$15}' "/proc/$pid/stat" 2>/dev/null); do ticks=$t; sleep 0.1; done
  wait "$pid"
  python3 - "$work/run.json" "$ticks" "$(getconf CLK_TCK)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f'{r["load"]["rps"]:.1f} {r["target"]["cpu_ms_per_request"]:.3f} {int(sys.argv[2]) / int(sys.argv[3]):.2f}')
PY
}

: > "$work/rows"
for _ in $(seq "$ROUNDS"); do
  for mode in pipe devnull; do echo "$mode $(run $mode)" >> "$work/rows"; done
done
python3 - "$work/rows" "$SECS" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
secs = float(sys.argv[2])
pipe = [list(map(float, r[1:])) for r in rows if r[0] == "pipe"]
null = [list(map(float, r[1:])) for r in rows if r[0] == "devnull"]
for name, rs in (("pipe", pipe), ("devnull", null)):
    m = [statistics.median(r[i] for r in rs) for i in range(3)]
    print(f"{name:8s} req/s {m[0]:8.1f}   service CPU ms/req {m[1]:7.3f}   perflab CPU {m[2]:5.2f} s   (medians of {len(rs)})")
# Ratios pair by pair (each round's runs are back to back), then their median:
# the machine's drift between rounds cancels out.
rps = statistics.median(a[0] / b[0] for a, b in zip(pipe, null))
cpu = statistics.median(a[1] / b[1] for a, b in zip(pipe, null))
extra = statistics.median(a[2] - b[2] for a, b in zip(pipe, null))
mbs = statistics.median(a[0] for a in pipe) * 0.36582  # 365,820 bytes per request
print(f"drained/devnull, median of pairs: req/s {rps:.3f}x, service CPU per request {cpu:.3f}x")
print(f"perflab's extra CPU for the drain: {extra:+.2f} s per run of {secs + 1:.0f} s (~{extra / (secs + 1) * 100:.1f}% of a core while the service writes ~{mbs:.0f} MB/s)")
PY
