#!/usr/bin/env bash
# Throughput and CPU per request of the generator: perflab's closed model
# against wrk -t1, bombardier and hey, side by side in one run. Server pinned to
# core 1, generator to core 0, 50 keep-alive connections, against (a) a minimal
# Go net/http hello server and (b) nginx serving a small static file.
# Prints each tool's median requests/s and generator CPU µs/request over ROUNDS
# rounds (tools interleaved within each round), then perflab's ratios.
#
#   bench/load-throughput.sh            # ROUNDS=5 SECS=5 by default
#   TOOLS="perflab wrk" ROUNDS=10 bench/load-throughput.sh   # a pair, more rounds
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
"$here/peers.sh" >/dev/null
bin=$here/.bin
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab && go build -o "$work/hello" ./testdata/services/hello)

taskset -c 1 "$work/hello" -addr 127.0.0.1:18181 -pprof-addr 127.0.0.1:0 >/dev/null 2>&1 & pids+=($!)
mkdir -p "$work/www" && printf 'hello, world\n' > "$work/www/index.html"
cat > "$work/nginx.conf" <<CONF
user root;
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http {
  access_log off;
  server { listen 127.0.0.1:18182; root $work/www; }
}
CONF
taskset -c 1 nginx -c "$work/nginx.conf" -p "$work" >/dev/null 2>&1 & pids+=($!)
sleep 1

# run TOOL URL: prints "rps cpu_us_per_request"
run() {
  local tool=$1 url=$2 out=$work/out cpu=$work/cpu
  case $tool in
    perflab) taskset -c 0 /usr/bin/time -f '%U %S' -o "$cpu" "$work/perflab" load -c 50 -d "${SECS}s" --quiet --json "$url" >"$out" ;;
    wrk) taskset -c 0 /usr/bin/time -f '%U %S' -o "$cpu" wrk -t1 -c50 -d"${SECS}s" "$url" >"$out" ;;
    bombardier) taskset -c 0 /usr/bin/time -f '%U %S' -o "$cpu" "$bin/bombardier" -c 50 -d "${SECS}s" -p r -o j "$url" >"$out" ;;
    hey) taskset -c 0 /usr/bin/time -f '%U %S' -o "$cpu" hey -c 50 -z "${SECS}s" "$url" >"$out" ;;
  esac
  python3 - "$tool" "$out" "$cpu" <<'PY'
import json, re, sys
tool, out, cpu = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
cpu = float(cpu[-2]) + float(cpu[-1])
if tool == "perflab":
    d = json.loads(out); n, rps = d["requests"], d["rps"]
elif tool == "wrk":
    n = int(re.search(r"(\d+) requests in", out).group(1)); rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
elif tool == "bombardier":
    r = json.loads(out[out.index("{"):])["result"]
    n = sum(r[k] for k in ("req1xx", "req2xx", "req3xx", "req4xx", "req5xx", "others")); rps = n / r["timeTakenSeconds"]
else:
    n = sum(int(x) for x in re.findall(r"\[\d+\]\s+(\d+) responses", out)); rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
print(f"{rps:.0f} {cpu / n * 1e6:.2f}")
PY
}

read -r -a tools <<<"${TOOLS:-perflab wrk bombardier hey}"
for target in "go-hello http://127.0.0.1:18181/" "nginx http://127.0.0.1:18182/index.html"; do
  set -- $target
  name=$1 url=$2
  : > "$work/$name.txt"
  for r in $(seq "$ROUNDS"); do
    for t in "${tools[@]}"; do echo "$t $(run "$t" "$url")" >> "$work/$name.txt"; done
  done
  python3 - "$name" "$work/$name.txt" <<'PY'
import statistics, sys
name, rows = sys.argv[1], [l.split() for l in open(sys.argv[2])]
med = {}
for t in dict.fromkeys(r[0] for r in rows):
    rps = [float(r[1]) for r in rows if r[0] == t]; cpu = [float(r[2]) for r in rows if r[0] == t]
    med[t] = (statistics.median(rps), statistics.median(cpu))
print(f"\n{name}: median of {len(rps)} rounds (generator on core 0, server on core 1, -c 50)")
print(f"  {'tool':<11} {'req/s':>9} {'CPU µs/req':>11}")
for t, (r, c) in med.items():
    print(f"  {t:<11} {r:>9.0f} {c:>11.2f}")
p = med["perflab"]
for t in med:
    if t != "perflab":
        print(f"  perflab vs {t:<10}: {p[0] / med[t][0]:.2f}x req/s, {p[1] / med[t][1]:.2f}x CPU per request")
PY
done
