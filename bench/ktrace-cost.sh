#!/usr/bin/env bash
# What a ktrace session (kernel-side timing, internal/ktrace) costs a
# service at saturation: the hello test service under
# `perflab load -c 50 -d SECS` (WORK=20us: each request spins that long
# first; SERVICE=demo: perflab's demo service, / at -c 8; SERVICE=flask:
# testdata/services/flaskapp's /work?ms=1 under gunicorn's 2 sync workers,
# a connection per request, at -c 8) several ways, interleaved, ROUNDS
# times each, the service on the last CPU and the load and the benchmark
# on the others (PIN=0: anywhere, where how the two share the CPUs moves
# the service's CPU per request from round to round):
#   nothing          nothing attached (and again, last: the noise)
#   empty program    an empty program at one tracepoint, counted all along
#   session          the scheduler and socket programs
#   +AcceptBacklog   and the program on every system call's return
#   +Stacks          and a user stack at every switch-out asleep
# Prints the medians: requests/s, the service's CPU per request, the
# programs' CPU as the kernel counts it over the service's CPU, that less
# the floor (what the kernel's run-time statistics count for the empty
# program, a run), and per program its share, cost per
# run and runs per request. Needs root.
#
#   bench/ktrace-cost.sh          # ROUNDS=5 SECS=5 by default
#   SERVICE=flask bench/ktrace-cost.sh   # gunicorn Flask, a connection per request
#   WORK=20us bench/ktrace-cost.sh       # a service of about 36 µs a request
#   SERVICE=demo bench/ktrace-cost.sh    # the demo service, about 1.7 ms a request
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
KTRACE_SERVICE=${SERVICE:-hello} KTRACE_WORK=${WORK:-0s} KTRACE_PIN=${PIN:-1} \
	KTRACE_ROUNDS=$ROUNDS KTRACE_ROUND=${SECS}s \
	go test -run '^$' -bench '^BenchmarkSessionCost$' -benchtime 1x -timeout 60m ./internal/ktrace |
	grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok \|Benchmark\)'
