#!/usr/bin/env bash
# bpfspec serve on five executables with one bpftrace: five copies of node
# at paths of their own (a private temp dir), each running a timer that
# busy-waits a known time every 100 ms (3, 6, 9, 12 and 15 ms), selected
# by one target and served with libuv-phases, --pid-label, at a 2 s
# interval.
# Truth:
#   - `bpfspec gen -p` on two of them writes each uprobe on both files
#     (one probe block, the kernel's probes once);
#   - serve runs one bpftrace (its descendants named bpftrace) for the five;
#   - each process's main thread has its own timers series, whose mean
#     (sum / count over the intervals so far), less node's own time in the
#     phase (the median excess of the five), is its busy time within 15%
#     and 0.3 ms;
#   - a process of an already-traced copy joins in place (the same
#     bpftrace, no restart counted);
#   - a process of a new copy (a rollout's new image) gets a bpftrace of
#     its own, started beside the running one (serve_family.c): no
#     restart counted, and the running one's processes stay traced while
#     it attaches (node1's timers count never stalls for 5 s or more: two
#     intervals and a scrape's lag; a restart stalled it 20 s and more);
#     when the first five copies' processes exit (the rollout ends), their
#     bpftrace ends and node6's goes on, node6 never untraced 5 s.
# Runs in about 40 s on an idle host, 60 s on a busy one (most of it
# bpftrace's starts: five files' 56 uprobes attach one by one).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prom.sh"
need_root

node_bin=$(command -v node)
mark=bpfspec-test-$$-exes
bin=$TMP/exes
mkdir -m 700 "$bin"
# work MS — a node program whose timer busy-waits MS ms every 100 ms.
work() {
	echo "const ns = BigInt($1 * 1e6); setInterval(() => {" \
		"const e = process.hrtime.bigint() + ns; while (process.hrtime.bigint() < e); }, 100);"
}
declare -A busy mean
pids=()
for k in 1 2 3 4 5; do
	cp "$node_bin" "$bin/node$k"
	"$bin/node$k" -e "$(work $((3 * k)))" "$mark" &
	pids+=($!)
	busy[$!]=$((3 * k))
	cleanup_pid "$!"
done
sleep 0.5

# One program for two executables: each uprobe on both files.
"$BPFSPEC" gen libuv-phases -p "${pids[0]}" -p "${pids[1]}" >"$TMP/two.bt" ||
	fail "bpfspec gen on two executables failed"
for k in 1 2; do
	grep -q "^uprobe:$bin/node$k:0x" "$TMP/two.bt" || fail "the program has no uprobe on node$k"
done
n_sched=$(grep -c '^tracepoint:\|^kprobe:\|^profile:' "$TMP/two.bt" || true)
echo "measured: gen -p of two executables    uprobes on both files, $n_sched kernel probes"

t0=$EPOCHREALTIME
start_serve libuv-phases --target "w=cmdline=bpfspec-test-$$-[e]xes" --listen 127.0.0.1:0 \
	--interval 2s --pid-label
m=$TMP/metrics.txt
sel='spec="libuv-phases",target="w"'
value() { awk -v k="$1" 'index($0, k " ") == 1 { print $NF }' "$m"; }
# timers PID FIELD — the timers phase's FIELD (count or sum) of PID's main thread.
timers() {
	awk -v p="pid=\"$1\"" -v f="bpfspec_latency_seconds_$2{" 'index($0, f) == 1 &&
		index($0, "probe=\"timers\"") && index($0, "thread_role=\"main\"") &&
		index($0, p) { print $NF }' "$m"
}
all_up() {
	local p
	[ "$(value "bpfspec_up{$sel}")" = 1 ] || return 1
	for p in "$@"; do [ -n "$(timers "$p" count)" ] || return 1; done
}
bpftraces() { serve_descendants | while read -r p; do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = bpftrace ] && echo "$p"; done | sort | tr '\n' ' '; }

for ((i = 0; i < 120; i++)); do
	scrape "$m"
	all_up "${pids[@]}" && break
	sleep 0.5
done
all_up "${pids[@]}" || { sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "not every process traced within 60 s"; }
echo "measured: every target up after        $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
bt0=$(bpftraces)
echo "measured: serve's bpftrace              $bt0($(echo $bt0 | wc -w) for 5 executables)"
[ "$(echo $bt0 | wc -w)" = 1 ] || fail "serve runs $(echo $bt0 | wc -w) bpftrace for one spec, not 1"

# Figures per process: two intervals more, then each mean.  The timers
# phase is the callback and node's own work around it (timers' lists, a
# few tenths of a ms; more on a busy host), the same in each process: each
# mean less the median of those excesses is its busy time.  Processes
# folded together would all show one mean.
sleep 4
scrape "$m"
for p in "${pids[@]}"; do
	c=$(timers "$p" count) s=$(timers "$p" sum)
	awk -v c="$c" 'BEGIN { exit !(c >= 30) }' || fail "pid $p has ${c:-no} timers after 6 s, not 30 or more"
	mean[$p]=$(awk -v s="$s" -v c="$c" 'BEGIN { printf "%.3f", 1000 * s / c }')
	echo "${mean[$p]} - ${busy[$p]}" | awk '{ print $1 - $3 }'
done >"$TMP/excess"
excess=$(sort -g "$TMP/excess" | sed -n 3p)
echo "measured: node's own time in timers     $excess ms (the median of the five excesses)"
awk -v e="$excess" 'BEGIN { exit !(e >= -0.2 && e < 3) }' || fail "the timers phase's excess over the busy time is $excess ms"
for p in "${pids[@]}"; do
	echo "measured: pid $p (busy ${busy[$p]} ms)      timers $(timers "$p" count), mean ${mean[$p]} ms"
	awk -v m="${mean[$p]}" -v e="$excess" -v b="${busy[$p]}" \
		'BEGIN { d = m - e - b; if (d < 0) d = -d; exit !(d <= 0.15 * b + 0.3) }' ||
		fail "pid $p's timers mean is ${mean[$p]} ms, not ${busy[$p]} ms + $excess ms within 15% and 0.3 ms"
done

# One more process of a traced copy: joins in place.
"$bin/node1" -e "$(work 3)" "$mark" &
same=$!
cleanup_pid "$same"
for ((i = 0; i < 40; i++)); do
	sleep 0.25
	scrape "$m"
	[ -n "$(timers "$same" count)" ] && break
done
[ -n "$(timers "$same" count)" ] || fail "a new process of node1 (pid $same) was not traced within 10 s"
[ "$(bpftraces)" = "$bt0" ] || fail "a process of a traced executable restarted serve's bpftrace"
[ -z "$(value "bpfspec_restarts_total{$sel}")" ] || fail "a process of a traced executable counted a restart"
echo "measured: a process of node1 joined     in place (bpftrace $bt0)"

# A process of a new copy: a bpftrace of its own beside the first, which
# keeps tracing node1..node5 while it attaches.
cp "$node_bin" "$bin/node6"
"$bin/node6" -e "$(work 3)" "$mark" &
fresh=$!
cleanup_pid "$fresh"
t0=$EPOCHREALTIME
last=$(timers "${pids[0]}" count) last_t=$t0 stall=0
for ((i = 0; i < 240; i++)); do
	sleep 0.25
	scrape "$m"
	now=$EPOCHREALTIME c=$(timers "${pids[0]}" count)
	if awk -v c="$c" -v l="$last" 'BEGIN { exit !(c > l) }'; then
		last=$c last_t=$now
	fi
	stall=$(awk -v s="$stall" -v a="$last_t" -v b="$now" 'BEGIN { d = b - a; print (d > s ? d : s) }')
	[ -n "$(timers "$fresh" count)" ] && break
done
[ -n "$(timers "$fresh" count)" ] ||
	{ sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "a process of a new copy (pid $fresh) was not traced within 60 s"; }
bt1=$(bpftraces)
echo "measured: a process of node6 traced     after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s, by bpftrace $bt1(node1's timers count stalled $(printf '%.1f' "$stall") s at most meanwhile)"
[[ " $bt1 " == *" ${bt0% } "* ]] || fail "the first bpftrace ($bt0) did not keep running: $bt1"
[ "$(echo $bt1 | wc -w)" = 2 ] || fail "serve runs $(echo $bt1 | wc -w) bpftrace with node6's, not 2"
[ -z "$(value "bpfspec_restarts_total{$sel}")" ] || fail "a process of a new executable counted a restart"
awk -v s="$stall" 'BEGIN { exit !(s < 5) }' ||
	fail "node1's timers count stalled $stall s while node6's bpftrace started: it was untraced"
# The rollout ends: node1..node5's processes exit.  Their bpftrace ends;
# node6's goes on, and node6 stays traced (its count never stalls 5 s).
bt_new=$(echo $bt1 | tr ' ' '\n' | grep -vx "${bt0% }")
kill "${pids[@]}" "$same"
last=$(timers "$fresh" count) last_t=$EPOCHREALTIME stall=0
for ((i = 0; i < 120; i++)); do
	sleep 0.25
	scrape "$m"
	now=$EPOCHREALTIME c=$(timers "$fresh" count)
	if awk -v c="$c" -v l="$last" 'BEGIN { exit !(c > l) }'; then
		last=$c last_t=$now
	fi
	stall=$(awk -v s="$stall" -v a="$last_t" -v b="$now" 'BEGIN { d = b - a; print (d > s ? d : s) }')
	[ "$(bpftraces)" = "$bt_new " ] && [ "$i" -ge 40 ] && break
done
echo "measured: node1..node5 exited          bpftrace $(bpftraces)left, node6's timers count stalled $(printf '%.1f' "$stall") s at most"
[ "$(bpftraces)" = "$bt_new " ] || fail "after the old processes exited, serve runs bpftrace $(bpftraces), not node6's $bt_new alone"
[ -z "$(value "bpfspec_restarts_total{$sel}")" ] || fail "the end of the rollout counted a restart"
awk -v s="$stall" 'BEGIN { exit !(s < 5) }' ||
	fail "node6's timers count stalled $stall s as the old processes exited: it was untraced"

# Stopping: serve exits at once; the kernel detaches the uprobes of its
# bpftrace one by one as that ends (about 0.1 s each, 60 here: 6 to 9 s,
# not waited for here: it was sent SIGKILL when its bpfspec run ended).
kill -TERM "$SERVE_PID"
ts=$EPOCHREALTIME
for ((i = 0; i < 200; i++)); do
	running "$SERVE_PID" || break
	sleep 0.1
done
running "$SERVE_PID" && fail "bpfspec serve did not exit within 20 s of SIGTERM"
echo "measured: serve exited                  $(awk -v a="$ts" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s after SIGTERM"
