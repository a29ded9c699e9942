# stack_walk.sh — section 3f of scripts/bench.sh (sourced; uses its row,
# calc, median, fix2, goal_le, say, die, wait_for, forget, pids, bpfspec,
# tmp, top, ROUNDS, WRK_SECONDS and bpf_stats_old): what loop-why's stack
# sampler costs with and without its walk of V8's frames (the walk reads
# 16 frames of the frame-pointer chain and each frame's function, so that
# JavaScript is named without a perf map: docs/spec.md, "Stacks").
#
# The server is scripts/workloads/http_hello.js --busy STACK_BUSY_MS: each
# request runs JavaScript for that long, so that under wrk -c10 the poll
# phase lasts long enough for the sampler to take stacks (loop-why's
# 'stacks: 10ms').  Interleaved, STACK_ROUNDS rounds: the server
# untraced, under loop-why with the walk off (BPFSPEC_V8_WALK=0), and
# under loop-why as shipped (the walk on).  With
# kernel.bpf_stats_enabled, the kernel adds up the time the profile
# program runs (the only perf-event program loop-why has): over the
# stacks the run took (the report's samples) it is the sampler's cost
# per sample, with the walk and without; the walk's own cost per sample
# is the difference, and the walk's share of the server's CPU time per
# request its slowdown.  wrk's requests/s give the measured slowdowns,
# noisier.

STACK_ROUNDS=${STACK_ROUNDS:-3}
STACK_BUSY_MS=${STACK_BUSY_MS:-5}

# stack_prog_ns PID — "NS RUNS": the BPF run time and run count of the
# perf-event programs (type 7: the profile probe) PID holds.
stack_prog_ns() {
	awk 'FNR == 1 { p = 0 } /^prog_type:/ { p = ($2 == 7) }
		p && /^run_time_ns:/ { t += $2 } p && /^run_cnt:/ { c += $2 }
		END { printf "%d %d\n", t, c }' /proc/"$1"/fdinfo/* 2>/dev/null
}

# stack_run NAME ROUND — one wrk run with the server untraced, or under
# loop-why with the walk off (nowalk) or on (walk).  Appends requests/s
# to $tmp/sw_rps_NAME, the server's CPU ns per request to
# $tmp/sw_cpr_NAME; traced, the profile program's ns per stack taken to
# $tmp/sw_ns_NAME, per run to $tmp/sw_run_NAME and per request to
# $tmp/sw_req_NAME, and the stacks taken to $tmp/sw_n_NAME.
stack_run() {
	local tl=$tmp/sw_$1_$2.tl out=$tmp/sw_$1_$2.json tracer="" bt walk=1 t0 c0 t1 c1 u0 u1 n samples
	if [ "$1" != untraced ]; then
		[ "$1" = nowalk ] && walk=0
		BPFSPEC_V8_WALK=$walk "$bpfspec" run loop-why -p "$sw_server" -d 0 -v -o json \
			>"$out" 2>"$tl" &
		tracer=$!
		pids+=("$tracer")
		wait_for "$tl" "bpftrace attached" 60 || { cat "$tl" >&2; die "loop-why ($1) did not attach"; }
		bt=$(pgrep -P "$tracer" -x bpftrace) || die "loop-why's bpftrace not found"
		read -r t0 c0 < <(stack_prog_ns "$bt")
	fi
	u0=$(awk '{ print $1 }' "/proc/$sw_server/schedstat")
	nice -n -10 taskset -c 1 wrk -t1 -c10 -d"${WRK_SECONDS}s" "$sw_url" >"$tmp/sw_wrk.out" 2>&1 ||
		die "wrk failed: $(cat "$tmp/sw_wrk.out")"
	u1=$(awk '{ print $1 }' "/proc/$sw_server/schedstat")
	n=$(awk '/ requests in / { print $1 }' "$tmp/sw_wrk.out")
	[ -n "$n" ] && [ "$n" -gt 0 ] || die "no requests from wrk: $(cat "$tmp/sw_wrk.out")"
	awk '/^Requests\/sec:/ { print $2 }' "$tmp/sw_wrk.out" >>"$tmp/sw_rps_$1"
	echo "$(calc "($u1 - $u0) / $n")" >>"$tmp/sw_cpr_$1"
	[ -n "$tracer" ] || return 0
	read -r t1 c1 < <(stack_prog_ns "$bt")
	kill -INT "$tracer"
	wait "$tracer" || true
	forget "$tracer"
	[ "$t1" -gt "$t0" ] || die "$1: no BPF run time of the profile program (kernel.bpf_stats_enabled?)"
	samples=$(jq '[.probes[].stacks[]?.samples] | add // 0' "$out")
	[ "$samples" -gt 0 ] || { cat "$tl" >&2; die "loop-why ($1) took no stack"; }
	echo "$(calc "($t1 - $t0) / $samples")" >>"$tmp/sw_ns_$1"
	echo "$(calc "($t1 - $t0) / ($c1 - $c0)")" >>"$tmp/sw_run_$1"
	echo "$(calc "($t1 - $t0) / $n")" >>"$tmp/sw_req_$1"
	echo "$samples" >>"$tmp/sw_n_$1"
}

stack_walk_section() {
	local port=$((40000 + $$ % 20000)) r t
	if ! bpf_stats_old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null); then
		bpf_stats_old=
		row stack_walk "sampler per stack, with the walk" - ns/sample - - - n/a \
			"this kernel has no kernel.bpf_stats_enabled (5.8+)"
		return 0
	fi
	nice -n -10 taskset -c 0 node "$top/scripts/workloads/http_hello.js" "$port" --busy "$STACK_BUSY_MS" \
		>"$tmp/sw_http.out" &
	sw_server=$!
	pids+=("$sw_server")
	wait_for "$tmp/sw_http.out" listening 10 || die "the busy HTTP server did not start"
	sw_url=http://127.0.0.1:$port/
	sysctl -q kernel.bpf_stats_enabled=1 || die "cannot set kernel.bpf_stats_enabled"
	say "stack sampler: loop-why with and without the V8 walk on a server running ${STACK_BUSY_MS} ms of JavaScript per request, $STACK_ROUNDS rounds"
	for ((r = 1; r <= STACK_ROUNDS; r++)); do
		for t in untraced nowalk walk; do
			stack_run "$t" "$r"
		done
	done
	sysctl -q kernel.bpf_stats_enabled="$bpf_stats_old"
	bpf_stats_old=
	kill "$sw_server"
	wait "$sw_server" 2>/dev/null || true
	forget "$sw_server"
	stack_walk_rows
}

# The section's rows from the runs' figures (medians).
stack_walk_rows() {
	local t k
	declare -A v
	for t in untraced nowalk walk; do
		for k in rps cpr ns run req n; do
			[ -s "$tmp/sw_${k}_$t" ] && v[${k}_$t]=$(grep . "$tmp/sw_${k}_$t" | median)
		done
	done
	local added slow_walk slow_nowalk cpu_share
	added=$(calc "${v[ns_walk]} - ${v[ns_nowalk]}")
	row stack_walk "sampler per stack: without the walk" "$(fix2 "${v[ns_nowalk]}")" ns/sample - - - - \
		"profile program's BPF time over the stacks taken (${v[n_nowalk]} a run); $(fix2 "${v[run_nowalk]}") ns a run, returns included"
	row stack_walk "sampler per stack: with the walk" "$(fix2 "${v[ns_walk]}")" ns/sample "without the walk" \
		"$(calc "${v[ns_walk]} / ${v[ns_nowalk]}")" - - \
		"${v[n_walk]} stacks a run; $(fix2 "${v[run_walk]}") ns a run, returns included"
	row stack_walk "the walk alone, per stack" "$(fix2 "$added")" ns/sample - - "<= 5000 ns" "$(goal_le "$added" 5000)" \
		"16 frames of the frame-pointer chain, each frame's function and its map read from the target"
	cpu_share=$(calc "($added * ${v[n_walk]} / (${v[rps_walk]} * $WRK_SECONDS)) / ${v[cpr_untraced]}")
	row stack_walk "the walk's slowdown of the server, from BPF time" "$(calc "100 * $cpu_share")" % - - "<= 1%" \
		"$(goal_le "$(calc "100 * $cpu_share")" 1)" \
		"the walk's time per request over the untraced server's CPU time per request ($(fix2 "${v[cpr_untraced]} / 1000") us)"
	slow_nowalk=$(calc "100 * (1 - ${v[rps_nowalk]} / ${v[rps_untraced]})")
	slow_walk=$(calc "100 * (1 - ${v[rps_walk]} / ${v[rps_untraced]})")
	row stack_walk "server requests/s: untraced" "${v[rps_untraced]}" req/s - - - - \
		"wrk -t1 -c10, ${STACK_BUSY_MS} ms of JavaScript a request; medians of $STACK_ROUNDS"
	row stack_walk "server requests/s: loop-why, no walk" "${v[rps_nowalk]}" req/s untraced \
		"$(calc "${v[rps_nowalk]} / ${v[rps_untraced]}")" - - "slowdown $(fix2 "$slow_nowalk")% (BPFSPEC_V8_WALK=0)"
	row stack_walk "server requests/s: loop-why, with the walk" "${v[rps_walk]}" req/s "loop-why, no walk" \
		"$(calc "${v[rps_walk]} / ${v[rps_nowalk]}")" - - "slowdown $(fix2 "$slow_walk")% against untraced"
}
