#!/usr/bin/env bash
# A real Go service that logs every request, under perflab: does perflab's
# drain of the service's output make logging cost what it costs when the
# output goes to a fast reader, and never stall the service? go-httpbin
# (installed from the Go module proxy at HTTPBIN_VERSION into a temporary
# GOBIN) writes one line of ~280 bytes to stderr per request (slog, one
# write each); its /base64/... endpoint decodes a short string, so the log
# line is a large part of a request's work. It runs under
# `perflab run --cpus 1 -c 8 --profiler none --no-trace` (service on core 1,
# perflab on core 0), ROUNDS times each way, interleaved:
#   drain   logging on (INFO), its stderr drained by perflab (what a user
#           gets by default)
#   off     -log-level OFF: no log line at all
#   fifo    logging on, stderr into a FIFO that `cat >/dev/null` reads,
#           started by this script outside the service's cgroup: a fast
#           reader that costs the service nothing but its writes
#   pipe    logging on, piped to cat by a wrapper script
#           (sh -c 'go-httpbin ... 2>&1 | cat'): cat runs in the service's
#           cgroup (its CPU counts as the service's) and writes to perflab
# Prints per mode the medians of requests/s, CPU µs per request (the
# cgroup's), p99 and max latency, and perflab's own CPU per request (its
# utime+stime, polled from /proc; the load generator and the drain), then
# the ratios drain/fifo and drain/off, median of the rounds' pairs.
#
#   bench/logging-service.sh                 # ROUNDS=5 SECS=5
#   PERFLAB=/path/to/perflab bench/logging-service.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
HTTPBIN_VERSION=${HTTPBIN_VERSION:-v2.26.0}
read -r -a modes <<<"${MODES:-drain off fifo pipe}"
work=$(mktemp -d)
reader=
cleanup() {
	[ -n "$reader" ] && kill "$reader" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
perflab=${PERFLAB:-}
if [ -z "$perflab" ]; then
	(cd "$root" && go build -o "$work/perflab" ./cmd/perflab)
	perflab=$work/perflab
fi
GOBIN=$work GOFLAGS=-mod=mod go install "github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin@$HTTPBIN_VERSION"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
svc="$work/go-httpbin -host 127.0.0.1 -port $port"
url="http://127.0.0.1:$port/base64/aGVsbG8sIHBlcmZsYWIgLSBiYXNlNjQgZGVjb2RpbmcgdGVzdA=="
mkfifo "$work/log.fifo"

# run MODE: prints "rps cpu_us_per_request p99_ms max_ms perflab_us_per_request".
run() {
	local mode=$1 cmd
	case $mode in
	drain) cmd=(sh -c "exec $svc") ;;
	off) cmd=(sh -c "exec $svc -log-level OFF") ;;
	fifo)
		# Opened read-write: the open does not wait for a writer, and cat
		# never sees the end of it; it is stopped when the run is over.
		cat <>"$work/log.fifo" >/dev/null &
		reader=$!
		cmd=(sh -c "exec $svc 2>$work/log.fifo")
		;;
	pipe) cmd=(sh -c "$svc 2>&1 | cat") ;;
	esac
	"$perflab" run --quiet --json --dir "$work/runs" --cpus 1 --service-cpus 1 --load-cpus 0 -c 8 \
		-d "${SECS}s" --warmup 1s --profiler none --no-trace "$url" -- "${cmd[@]}" >"$work/run.json" &
	local pid=$! ticks=0 t
	while t=$(awk '{print $14+$15}' "/proc/$pid/stat" 2>/dev/null); do ticks=$t; sleep 0.1; done
	wait "$pid" || true
	if [ -n "$reader" ]; then
		kill "$reader"
		wait "$reader" 2>/dev/null || true
		reader=
	fi
	python3 - "$work/run.json" "$ticks" "$(getconf CLK_TCK)" "$SECS" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l, t = r["load"], r["target"]
# perflab's CPU covers the warm-up (1 s) and the window: per request of both,
# at the window's rate.
reqs = l["rps"] * (float(sys.argv[4]) + 1)
print(f'{l["rps"]:.1f} {1000 * t["cpu_ms_per_request"]:.2f} {l["latency_ms"]["p99"]:.3f} {l["latency_ms"]["max"]:.2f} '
      f'{1e6 * int(sys.argv[2]) / int(sys.argv[3]) / reqs:.2f}')
PY
}

: >"$work/rows"
for _ in $(seq "$ROUNDS"); do
	for mode in "${modes[@]}"; do echo "$mode $(run "$mode")" >>"$work/rows"; done
done
python3 - "$work/rows" "$ROUNDS" "$SECS" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for r in rows:
    by.setdefault(r[0], []).append(list(map(float, r[1:])))
print(f"{'mode':6s} {'req/s':>9s} {'CPU µs/req':>11s} {'p99 ms':>8s} {'max ms':>8s} {'perflab µs/req':>15s}")
for m, rs in by.items():
    med = [st.median(x[i] for x in rs) for i in range(5)]
    print(f"{m:6s} {med[0]:9.0f} {med[1]:11.2f} {med[2]:8.3f} {med[3]:8.2f} {med[4]:15.2f}")
def ratio(a, b, i):
    return st.median(x[i] / y[i] for x, y in zip(by[a], by[b]))
for other in ("fifo", "off", "pipe"):
    if "drain" in by and other in by:
        print(f"drain/{other}, median of pairs: req/s {ratio('drain', other, 0):.3f}x, service CPU per request {ratio('drain', other, 1):.3f}x")
print(f"({sys.argv[2]} rounds of {sys.argv[3]} s windows, interleaved; go-httpbin /base64 under --cpus 1 on core 1, perflab on core 0)")
PY
