#!/usr/bin/env bash
# phases-truth.sh LOG KIND WINDOW_START_NS DURATION_NS [PHASES] — what
# phases.js --log says its KIND callbacks did inside a report's window
# (those that began and ended in it).  Prints one line, nanoseconds:
#   N MAX P99_LO P99 P99_HI SUM
# P99 is the nearest-rank 99th percentile over PHASES samples (the
# report's phase count: phases that ran no callback count as 0; default
# N), P99_LO and P99_HI the samples one rank below and above.  Used by
# the tests (tests/lib.sh logged_truth) and by make bench alike.
set -eu
[ $# -eq 4 ] || [ $# -eq 5 ] || {
	echo "usage: phases-truth.sh LOG KIND WINDOW_START_NS DURATION_NS [PHASES]" >&2
	exit 2
}
log=$1 kind=$2 ws=$3 dur=$4 phases=${5:-0}
[ -r "$log" ] || { echo "phases-truth.sh: cannot read $log" >&2; exit 1; }
we=$(awk -v a="$ws" -v b="$dur" 'BEGIN { printf "%.0f", a + b }')
awk -v k="$kind" -v ws="$ws" -v we="$we" '$1 == k && $2 >= ws && $2 + $3 <= we { print $3 }' "$log" |
	sort -n |
	awk -v phases="$phases" '
	function at(r) { if (r < 1) r = 1; if (r > N) r = N; return r > N - n ? d[r - (N - n)] : 0 }
	{ d[++n] = $1; sum += $1 }
	END {
		N = phases > n ? phases : n
		r = int(0.99 * N); if (r < 0.99 * N) r++
		printf("%d %.0f %.0f %.0f %.0f %.0f\n", n, d[n], at(r - 1), at(r), at(r + 1), sum) }'
