#!/bin/sh
# The demo's report.html: its size and how soon headless Chromium paints it
# (first paint and first contentful paint, medians of 5 fresh loads), and
# the same for the flame page of its CPU profile. Runs `perflab demo` once
# (a 1-CPU cgroup: run as root).
#
#   bench/report/run.sh
set -eu
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/perflab" ./cmd/perflab
go build -o "$dir/paint" ./bench/report/paint
"$dir/perflab" demo --no-ab --quiet -d 10s --dir "$dir/runs" >/dev/null
run=$(ls -d "$dir"/runs/*/ | head -1)
"$dir/perflab" flame -o "$dir/flame.html" "$run" 2>/dev/null
"$dir/paint" -n 5 "$run/report.html" "$dir/flame.html"
