#!/usr/bin/env bash
# Installs the load generators perflab is measured against, from the package
# registries: wrk and hey from Debian, bombardier and vegeta from the Go module
# proxy (exact versions, built in a throwaway module), nginx for the static
# target. Binaries land in bench/.bin. Safe to run again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/.bin
mkdir -p "$bin"
need=()
for p in wrk hey nginx-light; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
command -v /usr/bin/time >/dev/null || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ! -x "$bin/bombardier" ] || [ ! -x "$bin/vegeta" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cat > "$tmp/go.mod" <<'MOD'
module peers

go 1.26

require (
	github.com/codesenberg/bombardier v1.2.6
	github.com/tsenart/vegeta/v12 v12.13.0
)
MOD
  (cd "$tmp" && GOFLAGS=-mod=mod go build -o "$bin/bombardier" github.com/codesenberg/bombardier \
    && GOFLAGS=-mod=mod go build -o "$bin/vegeta" github.com/tsenart/vegeta/v12)
fi
echo "peers ready in $bin: $(ls "$bin" | tr '\n' ' ')"
