# syscall_call.sh — section 3d of scripts/bench.sh (sourced; uses its row,
# calc, median, fix2, goal_le, pct, say, die, bpfspec, tmp, top, BUILD,
# ROUNDS): the price of tracing one syscall, without a server's noise.
#
# syscall_loop makes SYSCALL_N getppid() calls and times its own loop with
# the vDSO clock, so start-up and attach stay outside the figure.  It runs
# untraced and under three tracers, interleaved, ROUNDS rounds:
#   bpfspec  `bpfspec run syscall-latency -d 0 -o json -- LOOP`;
#   by hand  scripts/bench/syscall-latency.bt (`bpftrace -c LOOP`, its pid
#            filter on cpid);
#   by hand + extras  the same script doing what bpfspec's program does on
#            top, and nothing else: figures per thread and syscall
#            ([tid, nr] keys), a per-thread minimum, and the check that the
#            call began inside the window (a read of @wstart).
# What bpfspec adds per call over the script by hand is then split into
# those extras (by hand + extras minus by hand) and the rest (bpfspec
# minus by hand + extras: its bucket arithmetic against hist()'s).

SYSCALL_N=${SYSCALL_N:-1000000}

# syscall_hand_extras — the script by hand with bpfspec's extras.
syscall_hand_extras() {
	cat <<'EOF'
BEGIN { printf("Tracing syscalls\n"); @wstart = (int64)nsecs; }
tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @start[tid] = (int64)nsecs; }
tracepoint:raw_syscalls:sys_exit /pid == cpid && @start[tid]/
{
	$t0 = @start[tid];
	delete(@start[tid]);
	if ($t0 < @wstart) { return; }
	$ns = (int64)nsecs - $t0;
	@us[args->id] = hist($ns / 1000);
	@ns[tid, args->id] = stats($ns);
	@min_ns[tid, args->id] = min($ns);
	@max_ns[tid, args->id] = max($ns);
	if (args->ret < 0) {
		@errors[args->id, - args->ret] = count();
	}
}
END { clear(@start); clear(@wstart); }
EOF
}

# syscall_run NAME — one run of the loop; appends its ns per call to
# $tmp/sc_NAME.
syscall_run() {
	local out=$tmp/sc_loop.out rc=0
	local loop=("$BUILD/bench/syscall_loop" "$SYSCALL_N" getppid "$out")
	rm -f "$out"
	case $1 in
	untraced) "${loop[@]}" || rc=$? ;;
	bpfspec) "$bpfspec" run syscall-latency -d 0 -o json -- "${loop[@]}" \
		>"$tmp/sc_bpfspec.json" 2>"$tmp/sc_$1.err" || rc=$? ;;
	hand) bpftrace -c "${loop[*]}" "$tmp/sc_hand.bt" >/dev/null 2>"$tmp/sc_$1.err" || rc=$? ;;
	extras) bpftrace -c "${loop[*]}" "$tmp/sc_extras.bt" >/dev/null 2>"$tmp/sc_$1.err" || rc=$? ;;
	esac
	[ "$rc" = 0 ] && [ -s "$out" ] || {
		cat "$tmp/sc_$1.err" 2>/dev/null >&2 || true
		die "syscall_loop under $1 failed (exit $rc)"
	}
	if [ "$1" = bpfspec ]; then	# bpfspec saw every call of the loop
		local seen
		seen=$(jq '[.probes[0].syscalls[] | select(.syscall == "getppid") | .count] | add // 0' \
			"$tmp/sc_bpfspec.json")
		[ "$seen" -ge "$SYSCALL_N" ] || die "bpfspec counted $seen getppid calls of $SYSCALL_N"
	fi
	awk -v n="$SYSCALL_N" '$1 == "loop_ns" { print $2 / n }' "$out" >>"$tmp/sc_$1"
}

syscall_section() {
	sed 's/\$1/cpid/g' "$top/scripts/bench/syscall-latency.bt" >"$tmp/sc_hand.bt"
	syscall_hand_extras >"$tmp/sc_extras.bt"
	local t r tools=(untraced bpfspec hand extras)
	say "per-syscall cost: $SYSCALL_N getppid() calls untraced, under bpfspec and by hand, $ROUNDS rounds"
	for ((r = 1; r <= ROUNDS; r++)); do
		for t in "${tools[@]}"; do
			syscall_run "$t"
		done
		say "  round $r done"
	done
	local base spec hand extras ratio res spread
	base=$(median <"$tmp/sc_untraced")
	spec=$(calc "$(median <"$tmp/sc_bpfspec") - $base")
	hand=$(calc "$(median <"$tmp/sc_hand") - $base")
	extras=$(calc "$(median <"$tmp/sc_extras") - $base")
	ratio=$(calc "$spec / $hand")
	res=$(goal_le "$ratio" 1.0)
	# The spread of the script by hand's added cost over the rounds: above
	# the goal by less than that is no result.
	spread=$(awk -v b="$base" '{ print $1 - b }' "$tmp/sc_hand" | sort -g |
		awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; print m ? (v[NR] - v[1]) / m : 0 }')
	if [ "$res" = FAIL ] && awk -v r="$ratio" -v n="$spread" 'BEGIN { exit !(r - 1 < n) }'; then res=n/a; fi
	row overhead_call "getppid(): untraced" "$(fix2 "$base")" ns/call - - - - "median of $ROUNDS runs of $SYSCALL_N calls"
	row overhead_call "syscall: bpfspec syscall-latency" "$(fix2 "$spec")" ns/call "bpftrace by hand" "$ratio" "<= 1.0x" "$res" \
		"added per call; over by hand: $(fix2 "$extras - $hand") ns the extras below, $(fix2 "$spec - $extras") ns the rest (log-linear buckets against hist())"
	row overhead_call "syscall: bpftrace by hand" "$(fix2 "$hand")" ns/call - - - - "added per call; spread of its rounds $(pct "$spread")"
	row overhead_call "syscall: by hand + bpfspec's extras" "$(fix2 "$extras")" ns/call "bpftrace by hand" "$(calc "$extras / $hand")" - - \
		"[tid, nr] keys, a per-thread min, the window-start check"
}
