#!/bin/sh
# Benchmark `perflab top` against
# `go tool pprof -top`, and `perflab list` and `top --lines` against
# `go tool pprof -list` and `perflab top`, on a large generated CPU profile
# (4 source lines per function): wall time and peak memory (max RSS) from
# /usr/bin/time -v, 5 runs each, medians and ratios.
#
#   bench/top/run.sh [samples] [stacks] [extra gen flags, e.g. -aggregate]
set -eu
cd "$(dirname "$0")/../.."
samples=${1:-600000}
stacks=${2:-60000}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
runs=5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

go build -o "$dir/gen" ./bench/top/gen
go build -o "$dir/perflab" ./cmd/perflab
"$dir/gen" -o "$dir/big.pb.gz" -samples "$samples" -stacks "$stacks" "$@"
echo "profile: $samples samples, $stacks stacks $*, $(stat -c %s "$dir/big.pb.gz") bytes gzipped"
pprof_tool=$(go tool -n pprof) # the binary `go tool pprof` runs, without the go command's startup

. bench/measure.sh

measure perflab-top "$dir/perflab" top "$dir/big.pb.gz"
measure perflab-top-user "$dir/perflab" top --user --requests 10000 "$dir/big.pb.gz"
measure perflab-flame "$dir/perflab" flame -o "$dir/flame.html" "$dir/big.pb.gz"
measure go-tool-pprof-top go tool pprof -top "$dir/big.pb.gz"
measure pprof-binary-top "$pprof_tool" -top "$dir/big.pb.gz"
# list: one hot user function of the generated service (its sources do not
# exist, so both print the sampled lines only).
list_re='Method41$'
measure perflab-top-lines "$dir/perflab" top --lines "$dir/big.pb.gz"
measure perflab-list "$dir/perflab" list "$list_re" "$dir/big.pb.gz"
measure go-tool-pprof-list go tool pprof -list "$list_re" "$dir/big.pb.gz"
measure pprof-binary-list "$pprof_tool" -list "$list_re" "$dir/big.pb.gz"

ratio go-tool-pprof-top perflab-top
ratio pprof-binary-top perflab-top
ratio go-tool-pprof-top perflab-top-user
ratio go-tool-pprof-list perflab-list
ratio pprof-binary-list perflab-list

# share A B: A's median time as a multiple of B's (the target: at most 2x).
share() {
	read -r aw _ <"$dir/$1.median"
	read -r bw _ <"$dir/$2.median"
	awk -v a="$aw" -v b="$bw" -v an="$1" -v bn="$2" 'BEGIN { printf "%s takes %.2fx the time of %s\n", an, a / b, bn }'
}
share perflab-list perflab-top
share perflab-top-lines perflab-top
echo "flame page: $(stat -c %s "$dir/flame.html") bytes"
if command -v chromium >/dev/null; then
	# First draw of the flame page in headless Chromium, as the page itself
	# records it (performance.now() at its first draw, in data-first-draw-ms).
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$dir/chrome" --virtual-time-budget=5000 \
		--dump-dom "file://$dir/flame.html" 2>/dev/null >"$dir/dom.html" || true
	ms=$(sed -n 's/.*data-first-draw-ms="\([0-9]*\)".*/\1/p' "$dir/dom.html" | head -1)
	echo "flame page first draw in headless Chromium: ${ms:-?} ms after navigation start"
fi
