#!/usr/bin/env bash
# Count probes count exactly: tests/workloads/count_calls.c calls a
# function exactly 1234 times (counted with uprobe:main:counted_function
# on a command held until the probes are attached), and getppid() exactly
# 500 times after a SIGUSR2 start signal (counted with the one-liner
# `bpfspec count -p PID tracepoint:syscalls:sys_enter_getppid`, the signal
# sent once bpfspec -v says the probes are attached).  A kprobe spec on
# this kernel (CONFIG_KPROBES off) fails before bpftrace starts: exit 4
# and a message saying why.
. "$(dirname "$0")/../lib.sh"
need_root

cc -O1 -g -Wall -Werror -o "$TMP/count_calls" "$TOP/tests/workloads/count_calls.c"

# 1. uprobe:main:FUNC on a command: exactly 1234 hits.
cat >"$TMP/func.yaml" <<'YAML'
# Hits of count_calls's counted_function.
name: count-func
probes:
  - name: calls
    kind: count
    probe: "uprobe:main:counted_function"
checks:
  - calls.count != 1234
YAML
"$BPFSPEC" run "$TMP/func.yaml" -o json -- "$TMP/count_calls" func 1234 \
	>"$TMP/func.json" 2>"$TMP/func.err" || { status=$?; cat "$TMP/func.err"; fail "bpfspec run exited $status"; }
n=$(jqr "$TMP/func.json" '.probes[0].count')
echo "measured: counted_function hits         $n (truth 1234)"
[ "$n" -eq 1234 ] || fail "counted $n calls of counted_function, expected exactly 1234"
[ "$(jqr "$TMP/func.json" '.probes[0].kind')" = count ] || fail "kind is not count"
[ "$(jqr "$TMP/func.json" '.probes[0].probe')" = uprobe:main:counted_function ] ||
	fail "the report does not name the probe point"
[ "$(jqr "$TMP/func.json" '[.probes[0].groups[].count] | add')" -eq 1234 ] ||
	fail "the groups' counts do not add up to 1234"
[ "$(jq -r '.probes[0] | has("p99_ns") or has("sum_ns")' "$TMP/func.json")" = false ] ||
	fail "a count probe reports latency fields"
"$BPFSPEC" run "$TMP/func.yaml" -o prom -- "$TMP/count_calls" func 1234 >"$TMP/func.prom" 2>"$TMP/func.err" ||
	{ status=$?; cat "$TMP/func.err"; fail "bpfspec run -o prom exited $status"; }
grep -qx 'bpfspec_probe_hits{spec="count-func",probe="calls"} 1234' "$TMP/func.prom" ||
	{ cat "$TMP/func.prom"; fail "no bpfspec_probe_hits 1234 in the prom output"; }

# 2. The one-liner on a tracepoint, with -p: exactly 500 getppid calls.
"$TMP/count_calls" getppid 500 60000 &
target=$!
cleanup_pid "$target"
await_sigwait "$target"
"$BPFSPEC" count -p "$target" tracepoint:syscalls:sys_enter_getppid -d 0 -o json -v \
	>"$TMP/getppid.json" 2>"$TMP/stderr" &
bpf=$!
cleanup_pid "$bpf"
await_window "$bpf" "$TMP/stderr"
kill -USR2 "$target"
set +e
wait "$bpf"
rc=$?
wait "$target"
target_rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "bpfspec count exited $rc"; }
[ "$target_rc" -eq 0 ] || fail "count_calls exited $target_rc"
n=$(jqr "$TMP/getppid.json" '.probes[0].count')
echo "measured: getppid calls                 $n (truth 500)"
[ "$n" -eq 500 ] || fail "counted $n getppid calls, expected exactly 500"
[ "$(jqr "$TMP/getppid.json" '.probes[0].name')" = sys_enter_getppid ] || fail "unexpected probe name"
[ "$(jqr "$TMP/getppid.json" '.probes[0].groups[0].tid')" -eq "$target" ] || fail "group is not the target's thread"
[ "$(jqr "$TMP/getppid.json" '.probes[0].groups[0].main_thread')" = true ] || fail "main_thread is not true"

# 3. kprobes: this kernel has none; bpfspec says so and runs nothing.
cat >"$TMP/kprobe.yaml" <<'YAML'
# A kprobe count, which this kernel cannot attach.
name: count-kprobe
probes:
  - name: opens
    kind: count
    probe: "kprobe:do_sys_openat2"
YAML
fake=$TMP/fake-bpftrace
printf '#!/bin/sh\ntouch %s/bpftrace-started\nexit 1\n' "$TMP" >"$fake"
chmod +x "$fake"
rc=0
BPFSPEC_BPFTRACE=$fake "$BPFSPEC" run "$TMP/kprobe.yaml" -d 1 -- "$TMP/count_calls" func 1 \
	>"$TMP/kprobe.out" 2>"$TMP/kprobe.err" || rc=$?
cat "$TMP/kprobe.err"
[ "$rc" -eq 4 ] || fail "a kprobe spec exited $rc, expected 4"
grep -q "kprobes are not available on this kernel (CONFIG_KPROBES is off)" "$TMP/kprobe.err" ||
	fail "no CONFIG_KPROBES message"
[ ! -e "$TMP/bpftrace-started" ] || fail "bpftrace was started for a kprobe spec"
# gen still prints the program.
"$BPFSPEC" gen "$TMP/kprobe.yaml" --binary "$TMP/count_calls" | grep -q '^kprobe:do_sys_openat2$' ||
	fail "gen does not print the kprobe program"
echo "ok"
