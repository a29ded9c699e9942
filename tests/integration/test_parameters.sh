#!/usr/bin/env bash
# Spec parameters and --set, on real runs of the bundled specs against
# tests/workloads/syscall_mix.c (50 clock_nanosleep of 10 ms, 37 openat of
# a missing path — each well under 1 ms — and 20 reads of 5 ms), started
# as a held command so that no call is missed.  Truths:
# - syscall-latency --set syscalls=clock_nanosleep,openat measures exactly
#   those two (50 and 37 calls) and no read; the report says which value
#   was in force.
# - file-io with its default threshold (1 ms) records none of the 37 fast
#   opens (or, when the host stretched one past 1 ms, just that one: the
#   file probe's histogram of the same opens says); --set threshold=0 --set records=5 records exactly 5 of them
#   and counts the other 32 as dropped.
# - a bad --set value is refused before bpftrace starts (exit 3), with its
#   column in the --set text.
. "$(dirname "$0")/../lib.sh"
need_root

# Linked statically: no dynamic loader opens files after the exec.
cc -O1 -g -static -Wall -Werror -o "$TMP/syscall_mix" "$TOP/tests/workloads/syscall_mix.c"
mix() { "$BPFSPEC" run "$@" -d 0 -o json -- "$TMP/syscall_mix" 0 "$TMP/missing"; }

mix syscall-latency --set syscalls=clock_nanosleep,openat >"$TMP/sl.json" 2>"$TMP/sl.err" ||
	{ cat "$TMP/sl.err"; fail "syscall-latency with --set failed"; }
r=$TMP/sl.json
names=$(jqr "$r" '[.probes[0].syscalls[].syscall] | sort | join(",")')
echo "measured: syscalls measured             $names (truth clock_nanosleep,openat)"
[ "$names" = clock_nanosleep,openat ] || fail "measured $names, expected clock_nanosleep,openat"
[ "$(jqr "$r" '.probes[0].syscalls[] | select(.syscall == "clock_nanosleep") | .count')" -eq 50 ] ||
	fail "clock_nanosleep count is not 50"
[ "$(jqr "$r" '.probes[0].syscalls[] | select(.syscall == "openat") | .count')" -eq 37 ] ||
	fail "openat count is not 37"
[ "$(jqr "$r" '.parameters.syscalls')" = clock_nanosleep,openat ] ||
	fail "the report does not say which syscalls were set"

mix file-io >"$TMP/fd.json" 2>"$TMP/fd.err" || { cat "$TMP/fd.err"; fail "file-io failed"; }
ev() { jqr "$1" ".probes[] | select(.name == \"slow_opens\") | $2"; }
# The opens are fast (microseconds), but a host that takes the CPU away
# can stretch one past 1 ms: the truth is the file probe's own histogram
# of the same opens.  Recorded: exactly the opens of 1 ms or more (those
# in buckets wholly above 1 ms, at most those in buckets reaching past
# it; ±1: the two probes time the same open with their own clock reads,
# and one stretched across 1 ms can fall either side), each at least 1 ms.
fd_ev=$(ev "$TMP/fd.json" '(.events | length) + .events_dropped')
opens=".probes[] | select(.name == \"file\") | .syscalls[] | select(.syscall == \"openat\")"
slow_lo=$(jqr "$TMP/fd.json" "[$opens | .buckets[] | select(.lo_ns >= 1000000) | .count] | add // 0")
slow_hi=$(jqr "$TMP/fd.json" "[$opens | .buckets[] | select(.hi_ns > 1000000) | .count] | add // 0")
echo "measured: default threshold             $(jqr "$TMP/fd.json" '.parameters.threshold'), $fd_ev events (truth $slow_lo-$slow_hi: the opens of 1 ms or more, usually none)"
[ "$fd_ev" -ge $((slow_lo - 1)) ] && [ "$fd_ev" -le $((slow_hi + 1)) ] ||
	fail "$fd_ev opens recorded at a 1 ms threshold; the file probe saw $slow_lo-$slow_hi opens of 1 ms or more"
[ "$(ev "$TMP/fd.json" '[.events[] | select(.duration_ns < 1000000)] | length')" -eq 0 ] ||
	fail "an open faster than 1 ms was recorded at a 1 ms threshold"
[ "$(ev "$TMP/fd.json" '.threshold_ns')" -eq 1000000 ] || fail "default threshold is not 1 ms"

mix file-io --set threshold=0 --set records=5 >"$TMP/f0.json" 2>"$TMP/f0.err" ||
	{ cat "$TMP/f0.err"; fail "file-io with --set failed"; }
kept=$(ev "$TMP/f0.json" '.events | length')
dropped=$(ev "$TMP/f0.json" '.events_dropped')
echo "measured: threshold=0 records=5         $kept kept, $dropped dropped (truth 5 and 32)"
[ "$kept" -eq 5 ] || fail "$kept events kept, expected 5 (records=5)"
[ "$dropped" -eq 32 ] || fail "$dropped events dropped, expected 32"
[ "$(jq --arg m "$TMP/missing" '[.probes[] | select(.name == "slow_opens") | .events[] |
	select(.error == "ENOENT" and .path == $m)] | length' "$TMP/f0.json")" -eq 5 ] ||
	fail "the recorded opens are not the ENOENT ones"
[ "$(jqr "$TMP/f0.json" '.parameters | "\(.threshold) \(.records)"')" = "0 5" ] ||
	fail "the report does not carry the values set"
"$BPFSPEC" run file-io --set threshold=0 -- /bin/true 2>/dev/null | grep -q '^parameters: threshold=0 (set), records=200$' ||
	fail "the text report does not list the parameters"

# Refused before tracing: the fake bpftrace on PATH would record a start.
mkdir "$TMP/bin"
printf '#!/bin/sh\ntouch "%s/started"\nexit 1\n' "$TMP" >"$TMP/bin/bpftrace"
chmod +x "$TMP/bin/bpftrace"
set +e
PATH=$TMP/bin:$PATH "$BPFSPEC" run file-io --set threshold=5xs -- /bin/true 2>"$TMP/bad.err"
rc=$?
PATH=$TMP/bin:$PATH "$BPFSPEC" run file-io --set treshold=5ms -- /bin/true 2>"$TMP/bad2.err"
rc2=$?
set -e
cat "$TMP/bad.err" "$TMP/bad2.err"
[ "$rc" -eq 3 ] && [ "$rc2" -eq 3 ] || fail "bad --set values exited $rc and $rc2, expected 3"
grep -q "^bpfspec: --set:1:11: error: invalid threshold '5xs'" "$TMP/bad.err" || fail "no located error for 5xs"
grep -q "did you mean 'threshold'" "$TMP/bad2.err" || fail "no suggestion for a misspelt name"
[ ! -e "$TMP/started" ] || fail "bpftrace was started for an invalid --set"
echo "ok: parameters"
