# Shared by the bench scripts (sourced, POSIX sh). They set $dir (a scratch
# directory) and $runs (how many runs) first.

# measure NAME CMD...: runs CMD $runs times under /usr/bin/time -v, prints
# the median wall seconds and max RSS kB, and keeps them in $dir/NAME.median.
measure() {
	name=$1
	shift
	: >"$dir/$name.times"
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -v "$@" >/dev/null 2>"$dir/time.out"
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.out" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.out")
		echo "$wall $rss" >>"$dir/$name.times"
		i=$((i + 1))
	done
	w=$(cut -d' ' -f1 "$dir/$name.times" | sort -g | sed -n "$(((runs + 1) / 2))p")
	m=$(cut -d' ' -f2 "$dir/$name.times" | sort -g | sed -n "$(((runs + 1) / 2))p")
	printf '%-32s median wall %6.2fs  median max RSS %8d kB\n' "$name" "$w" "$m"
	echo "$w $m" >"$dir/$name.median"
}

# ratio A B: how much faster and leaner B's medians are than A's.
ratio() {
	read -r bw bm <"$dir/$1.median"
	read -r pw pm <"$dir/$2.median"
	awk -v bw="$bw" -v bm="$bm" -v pw="$pw" -v pm="$pm" -v a="$1" -v b="$2" \
		'BEGIN { printf "%s vs %s: %.1fx faster, %.1fx less memory\n", a, b, bw / pw, bm / pm }'
}

# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
