#!/usr/bin/env bash
# What a ktrace session (kernel-side timing, internal/ktrace) costs a
# service at saturation: the hello test service under
# `perflab load -c 50 -d SECS` (SERVICE=flask: testdata/services/flaskapp's
# /work?ms=1 under gunicorn's 2 sync workers, a connection per request, at
# -c 8) several ways, interleaved, ROUNDS times each:
#   no session       nothing attached
#   session          the scheduler and socket programs
#   +AcceptBacklog   and the program on every system call's return
#   +Stacks          and a user stack at every switch-out asleep
# Prints the medians: requests/s, the service's CPU per request, the
# programs' CPU as the kernel counts it over the service's CPU, that less
# the floor (what the kernel's run-time statistics count for an empty
# program, measured in a last round), and per program its share, cost per
# run and runs per request. Needs root.
#
#   bench/ktrace-cost.sh          # ROUNDS=5 SECS=5 by default
#   SERVICE=flask bench/ktrace-cost.sh   # gunicorn Flask, a connection per request
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
KTRACE_SERVICE=${SERVICE:-hello} KTRACE_ROUNDS=$ROUNDS KTRACE_ROUND=${SECS}s \
	go test -run '^$' -bench '^BenchmarkSessionCost$' -benchtime 1x -timeout 60m ./internal/ktrace |
	grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok \|Benchmark\)'
