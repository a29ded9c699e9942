#!/usr/bin/env bash
# run.sh [SECONDS] [HARNESS...] — builds the libFuzzer harnesses
# tests/fuzz/fuzz_NAME.c (every one, or those NAMEd: spec, tmpl, bpfout, k8s, v8names, perfmap,
# check, report_json) once, with ASan + UBSan, into $BUILD/fuzz/, then runs
# each for SECONDS (default 60) from its seed corpus tests/fuzz/corpus/NAME
# (report_json: corpus/report) and its dictionary tests/fuzz/NAME.dict when
# there is one.  New inputs go to $BUILD/fuzz/corpus/NAME (the seeds stay as
# they are), crash/leak/timeout/oom reproducers to $BUILD/fuzz/artifacts/.
#
# Prints, per harness:
#   fuzz NAME: N executions, 0 crashes
#   ok fuzz/NAME            (or "FAIL fuzz/NAME", after the reproducer's path
#                            and the sanitizer's report)
# like tests/golden/*.sh, so tests/run.sh can count the "ok X"/"FAIL X"
# lines.  Exits 1 when any harness failed to build, left a reproducer, or
# exited non-zero; 2 on a usage error.
#
# Needs clang with libFuzzer (Debian: clang libclang-rt-14-dev; installed by
# scripts/setup.sh) and a built tree (`make`: the generated
# $BUILD/gen/systab_data.c and embedded.c).
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
cd "$top" || exit 2
BUILD=${BUILD:-build}
CLANG=${CLANG:-clang}

secs=60
case ${1:-} in
'') ;;
*[!0-9]*) ;;
*) secs=$1; shift ;;
esac
[ "$secs" -gt 0 ] || { echo "run.sh: SECONDS must be at least 1" >&2; exit 2; }

all=()
for f in tests/fuzz/fuzz_*.c; do
	n=${f#tests/fuzz/fuzz_}
	all+=("${n%.c}")
done
if [ $# -eq 0 ]; then
	set -- "${all[@]}"
fi
for h in "$@"; do
	[ -f "tests/fuzz/fuzz_$h.c" ] ||
		{ echo "run.sh: no harness '$h' (have: ${all[*]})" >&2; exit 2; }
done

out=$BUILD/fuzz
mkdir -p "$out/obj" "$out/artifacts" || exit 2
[ -f "$BUILD/gen/systab_data.c" ] && [ -f "$BUILD/gen/embedded.c" ] ||
	{ echo "run.sh: run make first ($BUILD/gen/*.c missing)" >&2; exit 2; }

FLAGS="-std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
-fno-sanitize-recover=undefined -iquote gen -iquote $BUILD/gen"
# The library's own list (the Makefile's), and libbcc for the harnesses.
LIBS="$(make -s --no-print-directory -C "$PWD" print-libs) $(pkg-config --libs libbcc 2>/dev/null || echo -lbcc)"

# The library, once for every harness: an object is rebuilt when it is
# older than this script or than a file of its dependency list (.d).
stale() { # stale OBJ — true when OBJ must be rebuilt
	local obj=$1 dep
	[ -f "$obj" ] && [ -f "${obj%.o}.d" ] || return 0
	[ "$here/run.sh" -nt "$obj" ] && return 0
	for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "${obj%.o}.d"); do
		case $dep in *:) continue ;; esac
		[ -e "$dep" ] || return 0
		[ "$dep" -nt "$obj" ] && return 0
	done
	return 1
}
objs=()
build_failed=0
for src in gen/*/*.c "$BUILD/gen/systab_data.c" "$BUILD/gen/embedded.c"; do
	[ "$src" = gen/main/main.c ] && continue
	obj=$out/obj/$(basename "$src" .c).o
	objs+=("$obj")
	if stale "$obj"; then
		# shellcheck disable=SC2086
		"$CLANG" $FLAGS -fsanitize=fuzzer-no-link -MMD -MF "${obj%.o}.d" -c -o "$obj" "$src" \
			>"$out/obj/build.log" 2>&1 || {
			sed 's/^/    /' "$out/obj/build.log"
			rm -f "$obj"
			build_failed=1
		}
	fi
done

# Harness settings: longest input, seed directory.
max_len() {
	case $1 in
	check) echo 512 ;;
	tmpl) echo 8192 ;;
	*) echo 16384 ;;
	esac
}
seeds() {
	case $1 in
	report_json) echo tests/fuzz/corpus/report ;;
	*) echo "tests/fuzz/corpus/$1" ;;
	esac
}
dict() {
	case $1 in
	report_json) echo tests/fuzz/report.dict ;;
	*) echo "tests/fuzz/$1.dict" ;;
	esac
}

failed=0
for h in "$@"; do
	bin=$out/fuzz_$h
	log=$out/fuzz_$h.log
	if [ "$build_failed" -ne 0 ]; then
		echo "fuzz $h: not run (the library did not build)"
		echo "FAIL fuzz/$h"
		failed=1
		continue
	fi
	# shellcheck disable=SC2086
	if ! "$CLANG" $FLAGS -fsanitize=fuzzer -o "$bin" "tests/fuzz/fuzz_$h.c" "${objs[@]}" \
		$LIBS >"$log" 2>&1; then
		sed 's/^/    /' "$log"
		echo "fuzz $h: not run (the harness did not build)"
		echo "FAIL fuzz/$h"
		failed=1
		continue
	fi
	mkdir -p "$out/corpus/$h" "$out/artifacts/$h"
	before=$(ls "$out/artifacts/$h")
	d=$(dict "$h")
	dict_opt=()
	[ -f "$d" ] && dict_opt=(-dict="$d")
	s=$(seeds "$h")
	[ -d "$s" ] || s=
	"$bin" -max_total_time="$secs" -max_len="$(max_len "$h")" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 "${dict_opt[@]+"${dict_opt[@]}"}" \
		-artifact_prefix="$out/artifacts/$h/" "$out/corpus/$h" ${s:+"$s"} >"$log" 2>&1
	rc=$?
	# "Done N runs in S second(s)" ends a clean run; after a crash, the
	# final stats (-print_final_stats) or the last "#N" status line say
	# how far it got.
	runs=$(sed -n 's/^Done \([0-9][0-9]*\) runs in .*/\1/p' "$log" | tail -1)
	[ -n "$runs" ] || runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9][0-9]*\)$/\1/p' "$log" | tail -1)
	[ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -1)
	[ -n "$runs" ] || runs=0
	new=$(comm -13 <(printf '%s\n' "$before") <(ls "$out/artifacts/$h"))
	crashes=0
	[ -n "$new" ] && crashes=$(printf '%s\n' "$new" | wc -l)
	echo "fuzz $h: $runs executions, $crashes crashes"
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		for a in $new; do echo "    reproducer: $out/artifacts/$h/$a (run: $bin $out/artifacts/$h/$a)"; done
		echo "    libFuzzer exit status $rc; its report ($log):"
		# The sanitizer's report: from its first "==" line, at most 60 lines.
		awk '/^==[0-9]+==|^SUMMARY|runtime error|^INFO: a leak/ { on = 1 } on && n++ < 60' "$log" |
			sed 's/^/    /'
		echo "FAIL fuzz/$h"
		failed=1
	else
		echo "ok fuzz/$h"
	fi
done
exit "$failed"
