#!/usr/bin/env bash
# What a ktrace session's socket programs cost one loopback round trip of
# a connection they time at both ends (a send, an arrival and a read on
# each side), in one thread on the last CPU: ROUNDS rounds of 20000
# round trips without a session, with one and without again. Prints the
# median CPU a session adds per round trip (quartiles: the noise) and the
# socket programs' cost per run as the kernel counts it. No load
# generator's batching moves the figures, so two builds of the programs
# compare here. Needs root.
#
#   bench/ktrace-roundtrip.sh            # ROUNDS=25 by default
set -euo pipefail
cd "$(dirname "$0")/.."
KTRACE_ROUNDS=${ROUNDS:-25} \
	go test -run '^$' -bench '^BenchmarkRoundTripCost$' -benchtime 1x -timeout 30m ./internal/ktrace |
	grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok \|Benchmark\)'
