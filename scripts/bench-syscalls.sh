#!/usr/bin/env bash
# bench-syscalls.sh — what tracing syscalls costs; a benchmark, not a test
# (it asserts nothing about the figures).  Needs root, bpftrace, strace,
# a built bpfspec (make); uses `perf trace` too when it works.  Prints two
# tables and writes them as JSON to $BUILD/bench-syscalls.json.
#
# (a) Cost per traced syscall.  scripts/workloads/syscall_loop.c makes N
#     getppid() calls (KIND=read: one-byte reads of /dev/zero) and times
#     its own loop with the vDSO clock, so start-up and attach are left
#     out.  It runs untraced, under `bpfspec run syscall-latency -- CMD`,
#     under `strace -c -f CMD` and under `perf trace -s CMD`, interleaved
#     (A B C D, A B C D, ...) for ROUNDS rounds; the table gives medians:
#     loop time per call, time added per call, and bpfspec's added cost
#     over strace's.
# (b) Attach and detach cost of the probes bpfspec could use for a
#     syscalls probe: bpftrace with the two raw_syscalls tracepoints, with
#     sys_enter_X/sys_exit_X for 4 syscalls (openat, read, write, close),
#     and with sys_enter_*/sys_exit_* (every syscall, ~720 tracepoints).
#     Each program prints a line in BEGIN (bpftrace 0.17 reads the
#     program's output only once every probe is attached, so the line
#     arrives when attaching is done) and exits from an interval probe
#     100 ms later (bpftrace then detaches every probe before it ends);
#     the arrival times give attach (start to the BEGIN line), detach (the
#     exit line to the end of the process) and total.  The every-syscall run takes most of
#     a minute (detaching), so it runs ALL_ROUNDS times (default 1).
#
# Usage: scripts/bench-syscalls.sh      (N=1000000 ROUNDS=5 ATTACH_ROUNDS=3
#                                         ALL_ROUNDS=1 KIND=getppid BUILD=build)
# Takes about 3 minutes on a 2-core machine.
set -eu
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
N=${N:-1000000}
ROUNDS=${ROUNDS:-5}
ATTACH_ROUNDS=${ATTACH_ROUNDS:-3}
ALL_ROUNDS=${ALL_ROUNDS:-1}
KIND=${KIND:-getppid}
bpfspec=$BUILD/bpfspec
out_json=$BUILD/bench-syscalls.json

die() { echo "bench-syscalls: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (bpftrace needs it)"
command -v bpftrace >/dev/null || die "bpftrace is not installed: run scripts/setup.sh"
command -v strace >/dev/null || die "strace is not installed: apt-get install strace"
[ -x "$bpfspec" ] || die "$bpfspec is missing: run make"
case $KIND in getppid | read) ;; *) die "KIND must be getppid or read" ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-syscalls.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Wall -o "$tmp/syscall_loop" "$top/scripts/workloads/syscall_loop.c"
loop=("$tmp/syscall_loop" "$N" "$KIND" "$tmp/loop.out")

# now_ns — wall clock in ns, from bash's $EPOCHREALTIME.
now_ns() { local t=$EPOCHREALTIME; echo "${t%.*}${t#*.}000"; }
# median — the median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1;
	print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

tools=(untraced bpfspec strace)
if perf trace -s -o /dev/null -- /bin/true >/dev/null 2>&1; then
	tools+=(perf)
else
	echo "bench-syscalls: perf trace does not work here; left out" >&2
fi
declare -A label=([untraced]="untraced" [bpfspec]="bpfspec syscall-latency"
	[strace]="strace -c -f" [perf]="perf trace -s")

# run TOOL — runs the loop under TOOL; appends "loop_ns wall_ns" to $tmp/TOOL.
run() {
	local t0 t1 rc=0
	rm -f "$tmp/loop.out"
	t0=$(now_ns)
	case $1 in
	untraced) "${loop[@]}" || rc=$? ;;
	bpfspec) "$bpfspec" run syscall-latency -d 0 -o json -- "${loop[@]}" \
		>"$tmp/bpfspec.json" 2>"$tmp/bpfspec.err" || rc=$? ;;
	strace) strace -c -f -o "$tmp/strace.txt" "${loop[@]}" || rc=$? ;;
	perf) perf trace -s -o "$tmp/perf.txt" -- "${loop[@]}" >/dev/null 2>&1 || rc=$? ;;
	esac
	t1=$(now_ns)
	[ "$rc" -eq 0 ] && [ -s "$tmp/loop.out" ] || {
		cat "$tmp/bpfspec.err" 2>/dev/null >&2 || true
		die "the loop under $1 failed (exit $rc)"
	}
	if [ "$1" = bpfspec ]; then	# bpfspec saw every call of the loop
		local seen
		seen=$(jq --arg k "$KIND" '[.probes[0].syscalls[] | select(.syscall == $k) | .count] | add // 0' \
			"$tmp/bpfspec.json")
		[ "$seen" -ge "$N" ] || die "bpfspec counted $seen $KIND calls of $N"
	fi
	echo "$(awk '$1 == "loop_ns" { print $2 }' "$tmp/loop.out") $((t1 - t0))" >>"$tmp/$1"
}

echo "(a) $N $KIND() calls per run, ${#tools[@]} tools interleaved, $ROUNDS rounds" >&2
for r in $(seq "$ROUNDS"); do
	for t in "${tools[@]}"; do
		run "$t"
	done
	echo "    round $r done" >&2
done

declare -A per_call wall
for t in "${tools[@]}"; do
	per_call[$t]=$(awk -v n="$N" '{ print $1 / n }' "$tmp/$t" | median)
	wall[$t]=$(awk '{ print $2 / 1e9 }' "$tmp/$t" | median)
done
base=${per_call[untraced]}
added() { awk -v a="$1" -v b="$base" 'BEGIN { printf "%.1f", a - b }'; }

# (b) attach/detach.
body='{ @s[tid] = nsecs; }'
exit_body='/@s[tid]/ { @n = count(); delete(@s[tid]); }'
frame='BEGIN { printf("bench:begin\n"); } interval:ms:100 { printf("bench:exit\n"); exit(); } END { clear(@s); }'
four_enter=$(printf 'tracepoint:syscalls:sys_enter_%s,' openat read write close)
four_exit=$(printf 'tracepoint:syscalls:sys_exit_%s,' openat read write close)
declare -A prog=(
	[raw]="tracepoint:raw_syscalls:sys_enter $body tracepoint:raw_syscalls:sys_exit $exit_body $frame"
	[four]="${four_enter%,} $body ${four_exit%,} $exit_body $frame"
	[all]="tracepoint:syscalls:sys_enter_* $body tracepoint:syscalls:sys_exit_* $exit_body $frame"
)
declare -A plabel=([raw]="raw_syscalls:sys_enter/sys_exit"
	[four]="syscalls:sys_{enter,exit}_X, 4 X" [all]="syscalls:sys_{enter,exit}_*")
declare -A prounds=([raw]=$ATTACH_ROUNDS [four]=$ATTACH_ROUNDS [all]=$ALL_ROUNDS)
variants=(raw four)
[ "$ALL_ROUNDS" -gt 0 ] && variants+=(all)

# attach_run NAME — one bpftrace run; appends "probes attach_s detach_s total_s".
attach_run() {
	local t0 tb=0 te=0 t1 line probes=0
	t0=$(now_ns)
	while IFS= read -r line; do
		case $line in
		"Attaching "*) probes=${line#Attaching }; probes=${probes%% *} ;;
		bench:begin) tb=$(now_ns) ;;
		bench:exit) te=$(now_ns) ;;
		esac
	done < <(BPFTRACE_MAX_PROBES=4096 bpftrace -B line -e "${prog[$1]}" 2>&1)
	t1=$(now_ns)
	[ "$tb" -gt 0 ] && [ "$te" -gt 0 ] || die "bpftrace ($1) did not run its BEGIN and interval probes"
	awk -v p="$probes" -v a=$((tb - t0)) -v d=$((t1 - te)) -v t=$((t1 - t0)) \
		'BEGIN { printf "%d %.4f %.4f %.4f\n", p, a / 1e9, d / 1e9, t / 1e9 }' >>"$tmp/attach_$1"
}

echo "(b) bpftrace attach/detach: raw and four x$ATTACH_ROUNDS, all x$ALL_ROUNDS" >&2
for r in $(seq "$(( ATTACH_ROUNDS > ALL_ROUNDS ? ATTACH_ROUNDS : ALL_ROUNDS ))"); do
	for v in "${variants[@]}"; do
		[ "$r" -le "${prounds[$v]}" ] && attach_run "$v"
	done
	echo "    round $r done" >&2
done
declare -A a_probes a_attach a_detach a_total
for v in "${variants[@]}"; do
	a_probes[$v]=$(awk '{ print $1 }' "$tmp/attach_$v" | median)
	a_attach[$v]=$(awk '{ print $2 }' "$tmp/attach_$v" | median)
	a_detach[$v]=$(awk '{ print $3 }' "$tmp/attach_$v" | median)
	a_total[$v]=$(awk '{ print $4 }' "$tmp/attach_$v" | median)
done

# The tables.
echo
echo "(a) cost per syscall: $N $KIND() calls, medians of $ROUNDS interleaved rounds"
printf '%-26s %12s %14s %11s %9s\n' tool "ns/call" "added ns/call" "x untraced" "wall s"
for t in "${tools[@]}"; do
	printf '%-26s %12.1f %14s %11.2f %9.2f\n' "${label[$t]}" "${per_call[$t]}" \
		"$([ "$t" = untraced ] && echo - || added "${per_call[$t]}")" \
		"$(awk -v a="${per_call[$t]}" -v b="$base" 'BEGIN { print a / b }')" "${wall[$t]}"
done
ratio=$(awk -v b="${per_call[bpfspec]}" -v s="${per_call[strace]}" -v u="$base" \
	'BEGIN { printf "%.4f", (b - u) / (s - u) }')
echo "added cost bpfspec/strace: $ratio (strace adds $(awk -v r="$ratio" 'BEGIN { printf "%.1f", 1 / r }')x what bpfspec adds)"
if [ -n "${per_call[perf]:-}" ]; then
	echo "added cost bpfspec/perf trace: $(awk -v b="${per_call[bpfspec]}" -v p="${per_call[perf]}" -v u="$base" \
		'BEGIN { printf "%.4f", (b - u) / (p - u) }')"
fi
echo
echo "(b) bpftrace attach/detach (BEGIN line read at attach, exit 100 ms later), medians"
printf '%-34s %7s %9s %9s %9s %7s\n' probes attached "attach s" "detach s" "total s" runs
for v in "${variants[@]}"; do
	printf '%-34s %7s %9.3f %9.3f %9.3f %7s\n' "${plabel[$v]}" "${a_probes[$v]}" \
		"${a_attach[$v]}" "${a_detach[$v]}" "${a_total[$v]}" "${prounds[$v]}"
done
echo "(attached counts bpftrace's probes: the tracepoints plus BEGIN, END and interval)"

# The JSON.
{
	echo "{"
	echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"kernel\": \"$(uname -r)\","
	echo "  \"bpftrace\": \"$(bpftrace --version | awk '{ print $2 }')\", \"cpus\": $(nproc),"
	echo "  \"per_syscall\": { \"syscall\": \"$KIND\", \"calls\": $N, \"rounds\": $ROUNDS, \"tools\": {"
	sep=""
	for t in "${tools[@]}"; do
		printf '%s    "%s": { "command": "%s", "ns_per_call": %s, "added_ns_per_call": %s, "wall_s": %s, "loop_ns_runs": [%s] }' \
			"$sep" "$t" "${label[$t]}" "${per_call[$t]}" "$(added "${per_call[$t]}")" "${wall[$t]}" \
			"$(awk '{ print $1 }' "$tmp/$t" | paste -sd, -)"
		sep=$',\n'
	done
	echo
	echo "  }, \"added_ratio_bpfspec_over_strace\": $ratio },"
	echo "  \"attach\": {"
	sep=""
	for v in "${variants[@]}"; do
		printf '%s    "%s": { "probes": "%s", "attached": %s, "attach_s": %s, "detach_s": %s, "total_s": %s, "runs": %s }' \
			"$sep" "$v" "${plabel[$v]}" "${a_probes[$v]}" "${a_attach[$v]}" "${a_detach[$v]}" \
			"${a_total[$v]}" "${prounds[$v]}"
		sep=$',\n'
	done
	echo
	echo "  }"
	echo "}"
} >"$tmp/bench.json"
jq . "$tmp/bench.json" >"$out_json" || die "wrote invalid JSON (see $tmp/bench.json)"
echo
echo "wrote $out_json"
