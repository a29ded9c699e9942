#!/usr/bin/env bash
# bpfspec serve while processes join and leave a group of one executable:
# two node workloads (scripts/workloads/phases.js) selected by one target,
# served with libuv-phases, --pid-label, at a 1 s interval; then a third workload starts and the second is killed.
# Truth:
#   - no restart: bpfspec_restarts_total never appears, the bpftrace serve
#     runs is the same process before and after, bpfspec_up stays 1;
#   - the staying process's timers count grows through the churn, checked
#     six times 1.5 s apart (a 1 s interval delivers about 40 timers
#     phases: 1.5 s later there is at least one more report; a restart's
#     4 s without bpftrace would leave two checks equal);
#   - the newcomer's series (its pid label) appear, scraped every 0.2 s,
#     within one interval of serve's next scan after it started: at most
#     2 s, given 3.5 s (node's start, the report, the scrape);
#   - the leaver's series stay, with the figures they had (a counter never
#     falls), and stop growing.
# Runs in about 20 s (bpftrace's start is 4 to 14 s of it).
# build: release — the churn's code paths (the child told on its stdin, a
# leaver's labels kept, a child that no longer reads) are test_serve's
# unit cases, which the valgrind pass runs; serve's and run's others are
# test_serve_cgroup's and test_interrupt's, which run under the sanitizer.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prom.sh"
need_root

mark=bpfspec-test-$$-churn
node "$TOP/scripts/workloads/phases.js" "$mark-a" &
a=$!
cleanup_pid "$a"
node "$TOP/scripts/workloads/phases.js" "$mark-b" &
b=$!
cleanup_pid "$b"
start_serve libuv-phases --target "w=cmdline=bpfspec-test-$$-[c]hurn" --listen 127.0.0.1:0 \
	--interval 1s --pid-label
m=$TMP/metrics.txt

# value NAME{LABELS} — the sample's value in the last scrape, or empty.
value() { awk -v k="$1" 'index($0, k " ") == 1 { print $NF }' "$m"; }
# timers PID — the timers phase's count of PID's main thread, or empty.
timers() {
	awk -v p="pid=\"$1\"" 'index($0, "bpfspec_latency_seconds_count{") == 1 &&
		index($0, "probe=\"timers\"") && index($0, "thread_role=\"main\"") &&
		index($0, p) { print $NF }' "$m"
}
sel='spec="libuv-phases",target="w"'
bpftraces() { serve_descendants | while read -r p; do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = bpftrace ] && echo "$p"; done | sort | tr '\n' ' '; }

t0=$EPOCHREALTIME
for ((i = 0; i < 120; i++)); do
	scrape "$m"
	[ "$(value "bpfspec_up{$sel}")" = 1 ] && [ -n "$(timers "$a")" ] && [ -n "$(timers "$b")" ] && break
	sleep 0.5
done
[ -n "$(timers "$a")" ] && [ -n "$(timers "$b")" ] ||
	{ sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "no timers count for both workloads within 60 s"; }
echo "measured: both traced after            $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
bt0=$(bpftraces)
[ -n "$bt0" ] || fail "serve runs no bpftrace"

# The churn: c joins, b leaves.
b_before=$(timers "$b")
node "$TOP/scripts/workloads/phases.js" "$mark-c" &
c=$!
cleanup_pid "$c"
tc=$EPOCHREALTIME
kill "$b"
wait "$b" 2>/dev/null
prev=$(timers "$a")
last=$EPOCHREALTIME
seen_c=
checks=0
for ((i = 0; i < 80 && checks < 6; i++)); do
	sleep 0.2
	scrape "$m"
	[ -n "$seen_c" ] || [ -z "$(timers "$c")" ] ||
		seen_c=$(awk -v a="$tc" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	awk -v a="$last" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a >= 1.5) }' || continue
	now=$(timers "$a")
	checks=$((checks + 1))
	echo "measured: check $checks: a's timers $prev -> $now, c's ${seen_c:+$(timers "$c")}, b's $(timers "$b"), restarts $(value "bpfspec_restarts_total{$sel}")"
	awk -v x="$prev" -v y="$now" 'BEGIN { exit !(y > x) }' ||
		{ sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "a's timers count did not grow in 1.5 s ($prev -> $now): an interval without data"; }
	[ -z "$(value "bpfspec_restarts_total{$sel}")" ] || fail "serve restarted its bpftrace on churn"
	[ "$(value "bpfspec_up{$sel}")" = 1 ] || fail "bpfspec_up fell during the churn"
	prev=$now
	last=$EPOCHREALTIME
done
[ "$checks" = 6 ] || fail "only $checks checks of a's count in 16 s"
echo "measured: newcomer's series after      ${seen_c:-never} s (truth: within 3.5 s)"
[ -n "$seen_c" ] || fail "the newcomer (pid $c) was not traced within 9 s"
awk -v s="$seen_c" 'BEGIN { exit !(s <= 3.5) }' || fail "the newcomer's series came after $seen_c s, not within 3.5 s"
b_after=$(timers "$b")
echo "measured: leaver's timers count        $b_before before its exit, $b_after after"
[ -n "$b_after" ] || fail "the leaver's series went (pid $b)"
awk -v x="$b_before" -v y="$b_after" 'BEGIN { exit !(y >= x) }' || fail "the leaver's count fell ($b_before -> $b_after)"
scrape "$m"
[ "$(timers "$b")" = "$b_after" ] || fail "the leaver's count still grows after it exited"
bt1=$(bpftraces)
echo "measured: serve's bpftrace              $bt0-> $bt1"
[ "$bt0" = "$bt1" ] || fail "serve's bpftrace changed ($bt0-> $bt1): it was restarted"
stop_serve >/dev/null
