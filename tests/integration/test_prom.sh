#!/usr/bin/env bash
# -o prom on real runs: libuv-phases (uprobe latency histograms, per-thread
# gauges, inlined probes not attached) against scripts/workloads/phases.js,
# and specs/file-io.yaml given as a path (syscall histograms, errors by
# errno) against tests/workloads/node_syscalls.js, 2 s each, the command
# started by bpfspec.  Truth: promtool (Debian package prometheus) accepts
# each output with no error and no lint warning; no series appears twice;
# every histogram's buckets rise with le and end with +Inf == _count; the
# window is 2 s (±10%); the calls the workloads make are counted (timers
# and poll phases; openat, read, close).
. "$(dirname "$0")/../lib.sh"
need_root
command -v promtool >/dev/null || fail "promtool is not installed (package prometheus): run scripts/setup.sh"

# promcheck FILE — promtool must say nothing at all: it exits 1 on a parse
# error and 3 on lint problems (naming conventions), and prints them.  No
# warning is tolerated: the names follow every convention it checks.
promcheck() {
	local out rc
	set +e
	out=$(promtool check metrics <"$1" 2>&1)
	rc=$?
	set -e
	[ "$rc" -eq 0 ] && [ -z "$out" ] || fail "promtool check metrics on $(basename "$1") (exit $rc): $out"
	echo "measured: $(basename "$1"): promtool clean, $(grep -vc '^#' "$1") samples"
}

# series FILE — checks what promtool does not: a series (name and labels)
# at most once, buckets non-decreasing in le order and cumulative counts,
# the +Inf bucket equal to _count for every histogram series.
series() {
	awk '
	/^#/ { next }
	{
		v = $NF; key = substr($0, 1, length($0) - length(v) - 1)
		if (seen[key]++) { print "duplicate series: " key; bad = 1 }
	}
	/^[a-z_]+_bucket\{/ {
		id = key; sub(/,le="[^"]*"\}$/, "}", id); sub(/_bucket\{/, "{", id)
		le = key; sub(/.*,le="/, "", le); sub(/"\}$/, "", le)
		lev = (le == "+Inf") ? "inf" : le + 0
		if (id in last && (v + 0 < last[id] || (lev != "inf" && lastle[id] == "inf") || \
				   (lev != "inf" && lev + 0 <= lastle[id] + 0))) {
			print "buckets not cumulative at " key; bad = 1
		}
		last[id] = v + 0; lastle[id] = lev
		if (le == "+Inf") inf[id] = v
		next
	}
	/^[a-z_]+_count\{/ { id = key; sub(/_count\{/, "{", id); count[id] = v }
	END {
		for (id in last) {
			if (!(id in inf)) { print "no +Inf bucket: " id; bad = 1 }
			else if (!(id in count) || count[id] != inf[id]) {
				print "+Inf bucket " inf[id] " != _count " count[id] ": " id; bad = 1
			}
		}
		exit bad
	}' "$1" || fail "$(basename "$1"): series are not well formed"
}

# value FILE SERIES — the value of the sample named SERIES exactly.
value() {
	local v
	v=$(awk -v s="$2" 'substr($0, 1, length(s) + 1) == s " " { print $NF }' "$1")
	[ -n "$v" ] || fail "$(basename "$1"): no sample $2"
	printf '%s\n' "$v"
}

# run NAME SPEC SPECNAME CMD... — bpfspec run SPEC -d 2s -o prom -- CMD
# into $TMP/NAME.prom, then the checks above and the window's length.
run() {
	local name=$1 spec=$2 specname=$3 rc
	shift 3
	set +e
	"$BPFSPEC" run "$spec" -d 2s -o prom -- "$@" >"$TMP/$name.prom" 2>"$TMP/$name.stderr"
	rc=$?
	set -e
	[ "$rc" -eq 0 ] || { cat "$TMP/$name.stderr"; fail "$name: bpfspec exited $rc"; }
	promcheck "$TMP/$name.prom"
	series "$TMP/$name.prom"
	window_length "$name window (s)" "$(value "$TMP/$name.prom" "bpfspec_window_seconds{spec=\"$specname\"}")" 2
}

# ---- libuv-phases -----------------------------------------------------
p=$TMP/phases.prom
run phases libuv-phases libuv-phases node "$TOP/scripts/workloads/phases.js" --seconds 10
grep -q '^bpfspec_target_info{spec="libuv-phases",pid="[1-9][0-9]*",binary="[^"]*node[^"]*"} 1$' "$p" ||
	fail "phases: no bpfspec_target_info naming node"
[ "$(value "$p" 'bpfspec_report_partial{spec="libuv-phases"}')" = 0 ] || fail "phases: partial"
[ "$(value "$p" 'bpfspec_probe_attached{spec="libuv-phases",probe="timers"}')" = 1 ] ||
	fail "phases: timers not attached"
for probe in timers poll; do
	n=$(awk -v p="probe=\"$probe\"" '/^bpfspec_latency_seconds_count\{/ && index($0, p) { print $NF }' "$p")
	echo "measured: phases $probe calls: ${n:-none}"
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "phases: no $probe calls counted"
done
# The 40 ms timer callback every 100 ms: at least 10 calls above 33.5 ms
# (le 2^25 ns) in 2 s, none of them below it.
slow=$(awk '/^bpfspec_latency_seconds_bucket\{.*probe="timers".*le="0.033554432"\}/ { b = $NF }
	/^bpfspec_latency_seconds_count\{.*probe="timers"/ { c = $NF } END { print c - b }' "$p")
echo "measured: phases timers phases over 33.5 ms: $slow"
[ "$slow" -ge 10 ] || fail "phases: $slow timers phases over 33.5 ms in 2 s, want >= 10"
grep -q '^bpfspec_thread_time_seconds{spec="libuv-phases",probe="timers",tid="[0-9]*",thread="[^"]*",main="true"} ' "$p" ||
	fail "phases: no main-thread time for timers"
# The inlined phases are derived from the gaps around them: attached, with
# a histogram of their own.
for ph in pending closing; do
	grep -q "^bpfspec_probe_attached{spec=\"libuv-phases\",probe=\"$ph\"} 1$" "$p" ||
		fail "phases: derived phase $ph is not reported attached"
	grep -q "^bpfspec_latency_seconds_count{spec=\"libuv-phases\",probe=\"$ph\",[^}]*} [1-9]" "$p" ||
		fail "phases: derived phase $ph has no histogram"
done

# ---- file-io, by path ----------------------------------------------------
head -c 4096 /dev/urandom >"$TMP/data.bin"
f=$TMP/file-io.prom
run file-io "$TOP/specs/file-io.yaml" file-io node --expose-gc "$TOP/tests/workloads/node_syscalls.js" \
	"$TMP/data.bin" "$TMP/port"
grep -q '^bpfspec_probe_attached{[^}]*} 0$' "$f" && fail "file-io: a probe was not attached"
for sc in openat read close; do
	n=$(awk -v s="syscall=\"$sc\"" '/^bpfspec_syscall_latency_seconds_count\{/ && index($0, s "}") { print $NF }' "$f")
	echo "measured: file-io $sc calls: ${n:-none}"
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "file-io: no $sc calls counted"
done
exit 0
