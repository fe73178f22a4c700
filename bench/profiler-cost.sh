#!/usr/bin/env bash
# What the profilers perflab starts cost, against the service they measure:
# py-spy, rbspy and perf's CPU during the measured window over the
# service's CPU (its cgroup) in the same window. Real framework services
# under `perflab run --cpus CPUS -c 8` (a closed load that keeps the budget
# busy), service on core 1 and perflab on core 0 (--service-cpus 1
# --load-cpus 0; CPUS=none: perflab run's defaults, no budget and -c 50):
#   gunicorn   gunicorn -w 2 + Flask (testdata/services/flaskapp, /report)
#   uvicorn    uvicorn --workers 2 (testdata/services/asgiapp, /score)
#   puma       puma -w 2 -t 2:2 + Rack (testdata/services/rackapp, /quote)
#   httpbin    go-httpbin (a Go service without net/http/pprof: perf), its
#              /base64 endpoint, logging off; installed from the Go module
#              proxy at HTTPBIN_VERSION into a temporary GOBIN
# each in MODES, ROUNDS times, interleaved:
#   default    perflab's default rates (perf 99 Hz, py-spy and rbspy 19) and
#              the off-CPU recorder on a slice of the window
#   hz99       --perf-hz 99 for every profiler (the spies' rate before);
#              hzN: --perf-hz N; notrace: --no-trace (no off-CPU recorder)
#   trace      --trace: the off-CPU recorder over the whole window
# Two figures per run, printed side by side:
#   perflab    what perflab itself records in run.json (profiling.profilers:
#              each recorder's utime+stime from /proc at the window's edges)
#   poll       this script's own reading: every 0.1 s, the CPU of every
#              py-spy, rbspy and perf process under perflab (/proc/PID/stat),
#              interpolated at the window's edges (quality.start, window_s)
# and the service's CPU (target.cpu_seconds). Prints, per service and mode,
# the medians of: profiler CPU in % of a core, in % of the service's CPU
# (the issue's target: < 5% at the default rate), CPU samples per second of
# the window, and the profile's coverage of the measured CPU.
#
#   bench/profiler-cost.sh                       # ROUNDS=3 SECS=10 CPUS=1
#   SERVICES="gunicorn puma" MODES="default hz99" bench/profiler-cost.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-10}
CPUS=${CPUS:-1}
HTTPBIN_VERSION=${HTTPBIN_VERSION:-v2.26.0}
read -r -a services <<<"${SERVICES:-gunicorn uvicorn puma httpbin}"
read -r -a modes <<<"${MODES:-default hz99 trace}"
export PATH=$PATH:$HOME/.cargo/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab)
svc=$root/testdata/services
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# service NAME: sets dir, url and cmd (the service's command line).
service() {
	case $1 in
	gunicorn) dir=$svc/flaskapp url=/report cmd=(gunicorn -w 2 -b "127.0.0.1:$port" --worker-class sync app:app) ;;
	uvicorn) dir=$svc/asgiapp url=/score cmd=(uvicorn --workers 2 --host 127.0.0.1 --port "$port" --no-access-log app:app) ;;
	puma) dir=$svc/rackapp url=/quote cmd=(puma -w 2 -t 2:2 -b "tcp://127.0.0.1:$port" config.ru) ;;
	httpbin)
		if [ ! -x "$work/go-httpbin" ]; then
			GOBIN=$work GOFLAGS=-mod=mod go install "github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin@$HTTPBIN_VERSION"
		fi
		dir=$work url=/base64/aGVsbG8sIHBlcmZsYWIgLSBiYXNlNjQgZGVjb2RpbmcgdGVzdA== cmd=("$work/go-httpbin" -host 127.0.0.1 -port "$port" -log-level OFF)
		;;
	esac
}

# one SERVICE MODE: appends one row to $work/rows.
one() {
	local name=$1 mode=$2 extra=()
	service "$name"
	case $mode in
	hz*) extra=(--perf-hz "${mode#hz}") ;;
	trace) extra=(--trace) ;;
	notrace) extra=(--no-trace) ;;
	esac
	local budget=(--cpus "$CPUS" --service-cpus 1 --load-cpus 0 -c 8)
	[ "$CPUS" = none ] && budget=() # perflab run's defaults: no budget, -c 50
	(cd "$dir" && "$work/perflab" run --quiet --json --dir "$work/runs" "${budget[@]}" \
		--warmup 2s -d "${SECS}s" "${extra[@]}" "http://127.0.0.1:$port$url" -- "${cmd[@]}" >"$work/run.json") &
	local runner=$!
	python3 "$work/poll.py" "$runner" >"$work/poll.txt"
	wait "$runner" || true
	python3 "$work/row.py" "$name" "$mode" "$work/run.json" "$work/poll.txt" >>"$work/rows"
}

# poll.py PID: every 0.1 s until PID exits, the time and the cumulative CPU
# seconds of each profiler process below it: "t pid comm cpu_s".
cat >"$work/poll.py" <<'PY'
import os, sys, time
root, hz = int(sys.argv[1]), os.sysconf("SC_CLK_TCK")
tools = {"py-spy", "rbspy", "perf"}
def stat(pid):
    s = open(f"/proc/{pid}/stat").read()
    f = s[s.rindex(")") + 2:].split()
    return s[s.index("(") + 1:s.rindex(")")], int(f[1]), (int(f[11]) + int(f[12])) / hz
while os.path.exists(f"/proc/{root}"):
    now, procs = time.time(), {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                procs[int(d)] = stat(d)
            except (OSError, ValueError, IndexError):
                pass
    def under(pid):
        for _ in range(32):
            if pid == root:
                return True
            if pid not in procs:
                return False
            pid = procs[pid][1]
        return False
    for pid, (comm, _, cpu) in procs.items():
        if comm in tools and under(pid):
            print(f"{now:.3f} {pid} {comm} {cpu:.2f}", flush=True)
    time.sleep(0.1)
PY

# row.py NAME MODE RUN POLL: one row of figures.
cat >"$work/row.py" <<'PY'
import datetime, json, sys
name, mode, run, poll = sys.argv[1:5]
r = json.load(open(run))
q, pr = r.get("quality") or {}, r.get("profiling") or {}
start = datetime.datetime.fromisoformat(q["start"].replace("Z", "+00:00")).timestamp()
end = start + q["window_s"]
series = {}
for line in open(poll):
    t, pid, comm, cpu = line.split()
    series.setdefault(pid, []).append((float(t), float(cpu)))
def at(pts, t):  # cumulative CPU at t, linear between readings; 0 before the process
    if t <= pts[0][0]:
        return 0.0 if t < pts[0][0] - 0.15 else pts[0][1]
    for (t0, c0), (t1, c1) in zip(pts, pts[1:]):
        if t <= t1:
            return c0 + (c1 - c0) * (t - t0) / (t1 - t0)
    return pts[-1][1]
polled = sum(max(at(p, end) - at(p, start), 0) for p in series.values())
ours = pr.get("profiler_cpu_s", 0.0)
service = (r.get("target") or {}).get("cpu_seconds", 0.0)
samples = sum(p.get("samples", 0) for p in pr.get("processes", []))
tools = " ".join(f'{u["tool"]}/{u["role"]}@{u.get("hz", 0)}:{u["cpu_s"]:.3f}' for u in pr.get("profilers", []))
print(name, mode, f"{q['window_s']:.3f} {service:.4f} {ours:.4f} {polled:.4f} {samples} {pr.get('coverage', 0):.3f} {r['load']['rps']:.1f}", tools)
PY

: >"$work/rows"
for _ in $(seq "$ROUNDS"); do
	for name in "${services[@]}"; do
		for mode in "${modes[@]}"; do
			[ "$name" = httpbin ] && [ "$mode" = trace ] && continue # no off-CPU slice for perf sched: --trace changes nothing
			one "$name" "$mode"
		done
	done
done
cat "$work/rows" >&2
python3 - "$work/rows" "$CPUS" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"{'service':9s} {'mode':8s} {'profilers % core':>16s} {'% of service CPU':>16s} {'poll: % service':>15s} {'service cores':>13s} {'samples/s':>9s} {'coverage':>8s}  (medians of runs; --cpus {sys.argv[2]})")
seen = []
for r in rows:
    if (r[0], r[1]) not in seen:
        seen.append((r[0], r[1]))
for name, mode in seen:
    rs = [list(map(float, r[2:9])) for r in rows if r[0] == name and r[1] == mode]
    med = lambda f: st.median(f(x) for x in rs)
    print(f"{name:9s} {mode:8s} {med(lambda x: 100 * x[2] / x[0]):16.2f} {med(lambda x: 100 * x[2] / x[1]):16.2f} "
          f"{med(lambda x: 100 * x[3] / x[1]):15.2f} {med(lambda x: x[1] / x[0]):13.3f} {med(lambda x: x[4] / x[0]):9.1f} {med(lambda x: x[5]):8.2f}  ({len(rs)})")
PY
