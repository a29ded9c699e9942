#!/usr/bin/env bash
# bpfspec serve while processes join and leave a group of one executable:
# two node workloads (scripts/workloads/phases.js) selected by one target,
# served with libuv-phases, --pid-label, at a 1 s interval and scraped
# every 1.5 s; then a third workload starts and the second is killed.
# Truth:
#   - no restart: bpfspec_restarts_total never appears, the bpftrace serve
#     runs is the same process before and after, bpfspec_up stays 1;
#   - the staying process's timers count grows at every scrape through the
#     churn (a 1 s interval delivers about 30 timers phases: a scrape 1.5 s
#     after the last holds at least one more report; a restart's 4 s
#     without bpftrace would leave two scrapes equal);
#   - the newcomer's series (its pid label) appear within one interval of
#     serve's next scan after it started: 2 s plus the scrape, given 3.5 s;
#   - the leaver's series stay, with the figures they had (a counter never
#     falls), and stop growing.
# Runs in about 20 s.
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
seen_c=
for ((i = 0; i < 6; i++)); do
	sleep 1.5
	scrape "$m"
	now=$(timers "$a")
	[ -n "$seen_c" ] || [ -z "$(timers "$c")" ] ||
		seen_c=$(awk -v a="$tc" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	echo "measured: scrape $((i + 1)): a's timers $prev -> $now, c's ${seen_c:+$(timers "$c")}, b's $(timers "$b"), restarts $(value "bpfspec_restarts_total{$sel}")"
	awk -v x="$prev" -v y="$now" 'BEGIN { exit !(y > x) }' ||
		{ sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "a's timers count did not grow between two scrapes 1.5 s apart ($prev -> $now): an interval without data"; }
	[ -z "$(value "bpfspec_restarts_total{$sel}")" ] || fail "serve restarted its bpftrace on churn"
	[ "$(value "bpfspec_up{$sel}")" = 1 ] || fail "bpfspec_up fell during the churn"
	prev=$now
done
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
