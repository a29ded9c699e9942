#!/usr/bin/env bash
# A syscalls probe counts exactly the target's calls: tests/workloads/
# syscall_mix.c calls clock_nanosleep(10 ms) exactly 50 times, openat() on
# a missing path exactly 37 times and read() on a pipe whose writer (a
# forked child process) sleeps 5 ms exactly 20 times.  Truth: counts
# 50/37/20 exactly, 37 ENOENT on openat and no other error, clock_nanosleep
# p50 within ±15% of 10 ms and no call under 10 ms, read p50 within
# ±15% of 5 ms, and only the target's own thread appears: neither its
# child (the pipe writer, which makes clock_nanosleep and read calls of
# its own) nor a second copy of the workload running at the same time
# (80/60/30 calls) is counted.
#
# The workload waits for SIGUSR2 (in rt_sigtimedwait, which is not traced)
# before its counted phase; the test sends it once bpfspec -v says every
# probe is attached, so no call of the phase can be missed.
. "$(dirname "$0")/../lib.sh"
need_root

cc -O1 -g -Wall -Werror -o "$TMP/syscall_mix" "$TOP/tests/workloads/syscall_mix.c"
cat >"$TMP/mix.yaml" <<'YAML'
# The three syscalls of tests/workloads/syscall_mix.c
name: syscall-mix
probes:
  - name: mix
    kind: syscalls
    syscalls: [clock_nanosleep, openat, read]
    unit: ms
YAML

# Without the signal each copy starts after 60 s, and then fails the test.
"$TMP/syscall_mix" 60000 "$TMP/missing" &
target=$!
cleanup_pid "$target"
"$TMP/syscall_mix" 60000 "$TMP/missing-too" 80 60 30 &	# another process: not counted
other=$!
cleanup_pid "$other"

# SIGUSR2 would kill a copy that has not blocked it yet: wait until both
# wait for it (in the kernel's do_sigtimedwait).
await_sigwait "$target" "$other"

"$BPFSPEC" run "$TMP/mix.yaml" -p "$target" -d 0 -o json -v >"$TMP/report.json" 2>"$TMP/stderr" &
bpf=$!
cleanup_pid "$bpf"
await_window "$bpf" "$TMP/stderr"
kill -USR2 "$target" "$other"

set +e
wait "$bpf"
rc=$?
wait "$target"
target_rc=$?
wait "$other"
other_rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "bpfspec exited $rc"; }
[ "$target_rc" -eq 0 ] || fail "the target workload exited $target_rc (a call did not behave as planned)"
[ "$other_rc" -eq 0 ] || fail "the other workload exited $other_rc"

r=$TMP/report.json
sc() { jqr "$r" ".probes[0].syscalls[] | select(.syscall == \"$1\") | $2"; }
n_sleep=$(sc clock_nanosleep .count)
n_open=$(sc openat .count)
n_read=$(sc read .count)
echo "measured: clock_nanosleep calls         $n_sleep (truth 50; the other process made 80)"
echo "measured: openat calls                  $n_open (truth 37; the other process made 60)"
echo "measured: read calls                    $n_read (truth 20; the other process made 30)"
[ "$n_sleep" -eq 50 ] || fail "counted $n_sleep clock_nanosleep calls, expected exactly 50"
[ "$n_open" -eq 37 ] || fail "counted $n_open openat calls, expected exactly 37"
[ "$n_read" -eq 20 ] || fail "counted $n_read read calls, expected exactly 20"
total=$(jqr "$r" '.probes[0].count')
[ "$total" -eq 107 ] || fail "probe count is $total, expected 107 (50 + 37 + 20)"

enoent=$(sc openat '.errors.ENOENT')
echo "measured: openat ENOENT                 $enoent (truth 37)"
[ "$enoent" -eq 37 ] || fail "openat ENOENT = $enoent, expected 37"
[ "$(sc openat .error_count)" -eq 37 ] || fail "openat error_count is not 37"
[ "$(jqr "$r" '[.probes[0].syscalls[] | select(.syscall != "openat") | .error_count] | add')" -eq 0 ] ||
	fail "clock_nanosleep or read reported errors"
errs=$(jq -r '[.probes[0].syscalls[].errors | keys[]] | join(",")' "$r")
[ "$errs" = ENOENT ] || fail "errors seen: '$errs', expected only ENOENT"

within "clock_nanosleep p50 (ms)" "$(sc clock_nanosleep .p50_ns | awk '{print $1/1e6}')" 10 0.15
within "read p50 (ms)" "$(sc read .p50_ns | awk '{print $1/1e6}')" 5 0.15
# A 10 ms clock_nanosleep never returns early (no signal reaches it): the
# exact minimum and total are lower bounds that load cannot break.
sleep_min=$(sc clock_nanosleep .min_ns)
sleep_sum=$(sc clock_nanosleep .sum_ns)
echo "measured: clock_nanosleep min, total    $(awk -v m="$sleep_min" -v s="$sleep_sum" 'BEGIN { printf "%.3f ms, %.1f ms (at least 10, 500)", m / 1e6, s / 1e6 }')"
echo "measured: read total                    $(sc read .sum_ns | awk '{ printf "%.1f ms (about 100)", $1 / 1e6 }')"
[ "$sleep_min" -ge 10000000 ] || fail "a 10 ms clock_nanosleep took $sleep_min ns"
[ "$sleep_sum" -ge 500000000 ] || fail "50 clock_nanosleep calls of 10 ms took $sleep_sum ns in all"

# Only the target's thread: no group and no per-syscall thread with another tid.
tids=$(jqr "$r" '[.probes[0].groups[].tid, .probes[0].syscalls[].threads[].tid] | unique | map(tostring) | join(" ")')
echo "measured: thread ids seen               $tids (target $target, other $other)"
[ "$tids" = "$target" ] || fail "thread ids $tids seen, expected only the target's $target"
[ "$(jqr "$r" '.target.pid')" -eq "$target" ] || fail "target.pid is not $target"
[ "$(jqr "$r" '.probes[0].groups | length')" -eq 1 ] || fail "expected exactly one thread group"
