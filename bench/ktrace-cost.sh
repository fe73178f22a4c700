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
# and the three session arms and nothing again under perf's cpu-clock
# sampler at 10 kHz (SAMPLED=0: not), which count the share of the
# service's own samples inside the programs and the tracepoints' call
# into them: what the session costs the service's CPU, apart from what
# the load's pace does to it (a load slowed by a few percent moves a hello
# world's CPU per request by more than that).
# Prints the medians: requests/s, the service's CPU per request, the
# programs' CPU as the kernel counts it over the service's CPU, that less
# the floor (what the kernel's run-time statistics count for the empty
# program, a run), and per program its share, cost per
# run and runs per request; then the sampled shares. Needs root (and perf
# for the sampled arms).
#
#   bench/ktrace-cost.sh          # ROUNDS=5 SECS=5 by default
#   SERVICE=flask bench/ktrace-cost.sh   # gunicorn Flask, a connection per request
#   WORK=20us bench/ktrace-cost.sh       # a service of about 36 µs a request
#   KEEPALIVE=0 bench/ktrace-cost.sh     # a connection per request
#   ACCEPT_AT=sys_exit KEEPALIVE=0 bench/ktrace-cost.sh  # the accept backlog
#                                        # timed at every system call's return
#   SERVICE=demo bench/ktrace-cost.sh    # the demo service, about 1.7 ms a request
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
KTRACE_SERVICE=${SERVICE:-hello} KTRACE_WORK=${WORK:-0s} KTRACE_PIN=${PIN:-1} KTRACE_KEEPALIVE=${KEEPALIVE:-1} \
	KTRACE_ACCEPT_AT=${ACCEPT_AT:-} \
	KTRACE_ROUNDS=$ROUNDS KTRACE_ROUND=${SECS}s KTRACE_SAMPLED=${SAMPLED:-1} \
	go test -run '^$' -bench '^BenchmarkSessionCost$' -benchtime 1x -timeout 60m ./internal/ktrace |
	grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok \|Benchmark\)'
