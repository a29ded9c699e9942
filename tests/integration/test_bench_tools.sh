#!/usr/bin/env bash
# The tools `make bench` measures with, checked against what is known
# (no time is asserted beyond the workloads' own construction):
#  (a) stamp records each line of both streams, sends SIGINT the given
#      delay after the first line matching a pattern, and records the exit;
#  (b) stamp -m reports the command's own peak RSS, not its child's: a
#      program touches 24 MiB and its child 96 MiB;
#  (c) latency_mix and syscall_sleeps write the truths they were built
#      for, and bpfspec, tracing them, counts every call and agrees on the
#      totals within 5%;
#  (d) parse_bench, linked against this build's objects (sanitized when
#      the suite runs under ASan), parses a stream built from a recorded
#      fixture and finds every window.
. "$(dirname "$0")/../lib.sh"
need_root

cflags=(-O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE)
for tool in scripts/bench/stamp scripts/workloads/latency_mix scripts/workloads/syscall_sleeps; do
	cc "${cflags[@]}" -o "$TMP/${tool##*/}" "$TOP/$tool.c" || fail "cannot build $tool.c"
done
stamp=$TMP/stamp

# ---- (a) lines, signal, exit ------------------------------------------
"$stamp" -s one -w 300 -o "$TMP/a.out" -- sh -c 'echo one; echo two >&2; exec sleep 30' >"$TMP/a.tl"
t_one=$(awk '$2 == "out" && $3 == "one" { print $1 }' "$TMP/a.tl")
t_two=$(awk '$2 == "err" && $3 == "two" { print $1 }' "$TMP/a.tl")
t_sig=$(awk '$2 == "sig" && $3 == "SIGINT" { print $1 }' "$TMP/a.tl")
st=$(awk '$2 == "exit" { print $3 }' "$TMP/a.tl")
[ -n "$t_one" ] && [ -n "$t_two" ] && [ -n "$t_sig" ] || { cat "$TMP/a.tl"; fail "stamp missed a line or the signal"; }
[ "$st" = 130 ] || { cat "$TMP/a.tl"; fail "sleep killed by SIGINT should give 130, got $st"; }
[ "$(cat "$TMP/a.out")" = one ] || fail "-o did not keep stdout byte for byte"
within "stamp: SIGINT after the line (s)" "$(awk -v a="$t_one" -v b="$t_sig" 'BEGIN { print b - a }')" 0.3 0.5

# ---- (b) the command's own peak RSS -----------------------------------
cat >"$TMP/hog.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
/* hog MIB CHILD_MIB: touches MIB MiB, then a child touches CHILD_MIB MiB. */
int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	size_t own = (size_t)atoi(argv[1]) << 20, child = (size_t)atoi(argv[2]) << 20;
	char *p = malloc(own);
	memset(p, 1, own);
	pid_t pid = fork();
	if (pid == 0) {
		char *q = malloc(child);
		memset(q, 2, child);
		_exit(q[child - 1] == 2 ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	return p[own - 1] == 1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
EOF
cc "${cflags[@]}" -o "$TMP/hog" "$TMP/hog.c" || fail "cannot build hog.c"
"$stamp" -m -- "$TMP/hog" 24 96 >"$TMP/b.tl"
[ "$(awk '$2 == "exit" { print $3 }' "$TMP/b.tl")" = 0 ] || { cat "$TMP/b.tl"; fail "hog failed under stamp -m"; }
hwm=$(awk '$2 == "hwm" { print $3 }' "$TMP/b.tl")
[ -n "$hwm" ] || { cat "$TMP/b.tl"; fail "stamp -m printed no VmHWM"; }
within "stamp -m: peak RSS of hog (MiB)" "$(awk -v k="$hwm" 'BEGIN { print k / 1024 }')" 25 0.2

# ---- (c) workloads with truths, traced --------------------------------
truth() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# The program times each call around it: host steal between the return
# and its clock read lengthens the truth, not the call.  A wrong tool is
# wrong in every run; up to three runs are measured.
mix_run() {
	"$BPFSPEC" latency -c "$TMP/latency_mix 20 $TMP/mix.truth" mix_work -d 0 -o json \
		>"$TMP/mix.json" 2>"$TMP/mix.err" || { cat "$TMP/mix.err"; fail "bpfspec latency on latency_mix"; }
	[ "$(truth "$TMP/mix.truth" count)" = 20 ] || fail "latency_mix wrote a wrong count"
	# 12 x 1 ms + 6 x 5 ms + 2 x 40 ms = 122 ms, each a little longer (far
	# longer when the host takes the CPU away: the truth is what it timed).
	mt=$(awk -v t="$(truth "$TMP/mix.truth" total_ns)" 'BEGIN { print t / 1e6 }')
	echo "measured: latency_mix: total (ms)       $mt (planned 122-126)"
	awk -v t="$mt" 'BEGIN { exit !(t >= 122 && t < 366) }' || fail "latency_mix: total $mt ms, planned 122"
	# The longest call is a 40 ms one (longer when preempted, never shorter).
	awk -v t="$(truth "$TMP/mix.truth" max_ns)" 'BEGIN { exit !(t >= 40e6) }' || fail "latency_mix: max below 40 ms"
	awk -v t="$(truth "$TMP/mix.truth" p50_ns)" 'BEGIN { exit !(t >= 1e6 && t < 5e6) }' || fail "latency_mix: p50 is not a 1 ms call"
	[ "$(jqr "$TMP/mix.json" '.probes[0].count')" = 20 ] || fail "bpfspec did not see the 20 calls of mix_work"
	within "bpfspec: mix_work total / truth" \
		"$(awk -v m="$(jqr "$TMP/mix.json" '.probes[0].sum_ns')" -v t="$(truth "$TMP/mix.truth" total_ns)" 'BEGIN { print m / t }')" 1 0.05
}
up_to 3 mix_run

# The program times each call around the syscall: host steal between the
# syscall's return and its clock read lengthens the truth, not the call
# (10 calls of 2 ms: one 2 ms burst is 10%).  A wrong tool is wrong in
# every run; up to three runs are measured.
sleeps_run() {
	"$BPFSPEC" run syscall-latency -d 0 -o json -- "$TMP/syscall_sleeps" 5 "$TMP/sleeps.truth" \
		>"$TMP/sleeps.json" 2>"$TMP/sleeps.err" || { cat "$TMP/sleeps.err"; fail "bpfspec on syscall_sleeps"; }
	for sc in nanosleep:5 clock_nanosleep:10 poll:5; do
		name=${sc%%:*} n=${sc#*:}
		[ "$(awk -v s="$name" '$1 == s { print $3 }' "$TMP/sleeps.truth")" = "$n" ] ||
			fail "syscall_sleeps wrote a wrong count for $name"
		got=$(jqr "$TMP/sleeps.json" "[.probes[0].syscalls[] | select(.syscall == \"$name\") | .count] | add // 0")
		[ "$got" = "$n" ] || fail "bpfspec counted $got $name calls, not $n"
		within "bpfspec: $name total / truth" "$(awk -v m="$(jqr "$TMP/sleeps.json" \
			".probes[0].syscalls[] | select(.syscall == \"$name\") | .sum_ns")" \
			-v t="$(awk -v s="$name" '$1 == s { print $5 }' "$TMP/sleeps.truth")" 'BEGIN { print m / t }')" 1 0.05
	done
}
up_to 3 sleeps_run

# ---- (d) parse_bench on a recorded fixture ----------------------------
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
san=()
[ "${SANITIZED:-0}" = 1 ] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer)
# shellcheck disable=SC2207
objs=($(make -s --no-print-directory -C "$TOP" BUILD="$BUILD" print-lib-objs))
# shellcheck disable=SC2046
cc "${cflags[@]}" "${san[@]}" -iquote "$TOP/gen" -o "$TMP/parse_bench" "$TOP/scripts/bench/parse_bench.c" \
	"${objs[@]}" $(make -s --no-print-directory -C "$TOP" print-libs) || fail "cannot link parse_bench"
line=$("$TMP/parse_bench" 2 10 1 "$TOP/tests/fixtures/bpftrace-0.17-windows.jsonl") ||
	fail "parse_bench failed on the windows fixture"
set -- $line
[ "$1" = bytes ] && [ "$6" -gt 100 ] && [ "$8" = 0 ] || fail "parse_bench: unexpected result: $line"
echo "measured: parse_bench on the fixture: $line"
