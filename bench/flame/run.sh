#!/bin/sh
# Benchmark `perflab flame` on a large CPU profile against `perflab top` on
# the same file and against inferno (the Rust port of FlameGraph), which
# folds the same samples from `perf script` text (inferno-collapse-perf)
# and renders an SVG (inferno-flamegraph): wall time, CPU time (user+sys)
# and peak memory (max RSS) from /usr/bin/time -v, medians of interleaved
# rounds, and the ratios. The profile is generated: by default 900,000
# samples over 700,000 distinct stacks of 80,000 functions with 28 source
# lines each (about 27 MB gzipped), one sample record each as
# perf-converted profiles are; the perf script text has the same samples.
#
#   bench/flame/run.sh [rounds]
#
# inferno is installed from crates.io at a pinned version when missing.
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-5}
inferno_version=0.12.3
export PATH="$HOME/.cargo/bin:$PATH"
# inferno's commands take no --version: ask cargo what it installed.
if ! cargo install --list 2>/dev/null | grep -q "^inferno v$inferno_version:"; then
	cargo install inferno --version "$inferno_version" --locked
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

go build -o "$dir/gen" ./bench/top/gen
go build -o "$dir/perflab" ./cmd/perflab
"$dir/gen" -o "$dir/big.pb.gz" -samples 900000 -stacks 700000 -funcs 80000 -lines 28 -perf-script "$dir/big.perf"
echo "profile: $(stat -c %s "$dir/big.pb.gz") bytes gzipped; perf script text: $(stat -c %s "$dir/big.perf") bytes"

cat >"$dir/inferno.sh" <<SCRIPT
#!/bin/sh
inferno-collapse-perf "$dir/big.perf" >"$dir/big.folded" && inferno-flamegraph "$dir/big.folded" >"$dir/inferno.svg"
SCRIPT
chmod +x "$dir/inferno.sh"

# run NAME CMD...: one run; appends "wall cpu rss_kB" to $dir/NAME.
run() {
	name=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>"$dir/time.out"
	awk -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2] }
		/User time/ { cpu += $2 }
		/System time/ { cpu += $2 }
		/Maximum resident set size/ { rss = $2 }
		END { print wall, cpu, rss }' "$dir/time.out" >>"$dir/$name"
}

i=0
while [ "$i" -lt "$rounds" ]; do
	run top "$dir/perflab" top "$dir/big.pb.gz"
	run flame "$dir/perflab" flame -o "$dir/flame.html" "$dir/big.pb.gz"
	run inferno "$dir/inferno.sh"
	i=$((i + 1))
done

# median NAME COLUMN
median() { cut -d' ' -f"$2" "$dir/$1" | sort -g | sed -n "$(((rounds + 1) / 2))p"; }
for name in top flame inferno; do
	printf '%-8s median wall %6.2fs  cpu %6.2fs  max RSS %7d kB\n' "$name" "$(median $name 1)" "$(median $name 2)" "$(median $name 3)"
done
ratio() { awk -v a="$(median "$1" "$3")" -v b="$(median "$2" "$3")" 'BEGIN { printf "%.2fx", a / b }'; }
echo "perflab flame vs perflab top: wall $(ratio flame top 1), cpu $(ratio flame top 2), memory $(ratio flame top 3)"
echo "perflab flame vs inferno (collapse + render): wall $(ratio flame inferno 1), cpu $(ratio flame inferno 2), memory $(ratio flame inferno 3)"
echo "flame page: $(stat -c %s "$dir/flame.html") bytes; inferno SVG: $(stat -c %s "$dir/inferno.svg") bytes"
