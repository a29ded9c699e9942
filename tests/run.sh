#!/usr/bin/env bash
# run.sh [layers] [unit] [golden] [integration] [modern] [asan] [valgrind] [fuzz] [all] — runs test groups and
# ends with one summary line "N passed, N failed".  BUILD names the build
# dir; "asan" runs the unit and golden tests again with the sanitizer
# build in $BUILD/asan (make asan-build), and with ASAN_INTEGRATION=1 the
# integration tests too (see run_integration: make check runs them only
# there, each once).
# VALGRIND=1 runs the unit tests under valgrind (leaks are failures).
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
export BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
export BPFSPEC=$BUILD/bpfspec
export TOP=$top
passed=0
failed=0
prefix=
failed_names=()

# record NAME STATUS [SECONDS] — STATUS 0 is a pass; SECONDS, how long
# it took, is printed after the name (the suite has a time budget).
record() {
	local took=${3:+ (${3} s)}
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok   $1$took"
	else
		failed=$((failed + 1))
		failed_names+=("$1")
		echo "FAIL $1$took"
	fi
}

# seconds_since T0 — whole seconds from $EPOCHREALTIME T0 to now.
seconds_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", b - a + 0.5 }'
}

# private_libs BIN DIR — copies the shared libraries BIN links (ldd's
# list; not the dynamic loader, nor what it dlopens, libbcc) into DIR,
# for LD_LIBRARY_PATH.  A uprobe
# that another tool holds on a library (bpftrace on libc, say) is an int3
# written into that file's pages; valgrind runs the code it reads, and
# stops at such an int3 with SIGTRAP where the kernel would have stepped
# over it.  A copy is another file, which no uprobe holds: the valgrind
# pass runs the same code and is not stopped by the tracers beside it.
private_libs() {
	local lib
	for lib in $(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
		[ -e "$2/$(basename "$lib")" ] || cp "$lib" "$2/" || return 1
	done
}

# valgrind_trap_note OUTPUT — says why, when valgrind stopped a test with
# SIGTRAP anyway (a uprobe on the dynamic loader, which is not copied).
valgrind_trap_note() {
	case $1 in *"SIGTRAP"*) ;; *) return ;; esac
	echo "    valgrind hit a breakpoint instruction: another tool holds uprobes on code"
	echo "    this test runs (tracers running now: $(pgrep -x bpftrace | tr '\n' ' ')); the test"
	echo "    itself did not fail: run the valgrind pass again once no other tracer is attached"
}

run_unit() {
	local bin out rc
	if [ "${VALGRIND:-0}" = 1 ] && [ -z "${VALGRIND_LIBS:-}" ]; then
		# Under the build dir: /tmp may be mounted noexec.
		VALGRIND_LIBS=$(mktemp -d "$BUILD/valgrind-libs.XXXXXX") ||
			{ echo "run.sh: cannot make a directory in $BUILD" >&2; exit 2; }
		trap 'rm -rf "$VALGRIND_LIBS"' EXIT
	fi
	for bin in "$BUILD"/tests/test_*; do
		[ -x "$bin" ] || continue
		case $bin in *.d|*.o) continue ;; esac
		if [ "${VALGRIND:-0}" = 1 ]; then
			if ! private_libs "$bin" "$VALGRIND_LIBS"; then
				record "${prefix}unit/$(basename "$bin") (valgrind: copying its libraries)" 1
				continue
			fi
			out=$(CK_FORK=no LD_LIBRARY_PATH=$VALGRIND_LIBS valgrind -q --error-exitcode=99 \
				--leak-check=full --suppressions="$here/valgrind.supp" \
				--errors-for-leak-kinds=definite,indirect "$bin" 2>&1)
		else
			out=$("$bin" 2>&1)
		fi
		rc=$?
		[ "$rc" -eq 0 ] || printf '%s\n' "$out" | sed 's/^/    /'
		[ "$rc" -ne 0 ] && [ "${VALGRIND:-0}" = 1 ] && valgrind_trap_note "$out"
		record "${prefix}unit/$(basename "$bin")${VALGRIND:+ (valgrind)}" "$rc"
	done
}

# The layering of gen/ (gen/LAYERS), before any test of the code.
run_layers() {
	local out rc
	out=$(sh "$top/scripts/check-layers.sh" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	record "layers/check-layers" "$rc"
}

run_golden() {
	local t rc
	for t in "$here"/golden/*.sh; do
		[ -f "$t" ] || continue
		# Each golden driver prints "ok NAME" / "FAIL NAME" lines itself.
		while IFS= read -r line; do
			case $line in
			"ok "*) record "${prefix}golden/${line#ok }" 0 ;;
			"FAIL "*) record "${prefix}golden/${line#FAIL }" 1 ;;
			*) echo "    $line" ;;
			esac
		done < <(bash "$t" 2>&1)
	done
}

# Each integration test once.  In the sanitizer group ("asan", with
# ASAN_INTEGRATION=1) a test runs with the sanitizer build unless its
# header says "# build: release REASON": then with the release build
# (REASON says why the sanitizer would find nothing there that the other
# tests' sanitized runs do not).
run_integration() {
	local t rc t0 name log pass_name env_release=()
	[ -n "$prefix" ] && env_release=(env BUILD="$saved" BPFSPEC="$saved/bpfspec" SANITIZED=0)
	for t in "$here"/integration/test_*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		t0=$EPOCHREALTIME
		if [ -n "$prefix" ] && grep -q '^# build: release' "$t"; then
			"${env_release[@]}" bash "$t" >"$saved/$name.log" 2>&1
			rc=$?
			log=$saved/$name.log pass_name=integration/$name
		else
			bash "$t" >"$BUILD/$name.log" 2>&1
			rc=$?
			log=$BUILD/$name.log pass_name=${prefix}integration/$name
		fi
		[ "$rc" -eq 0 ] || sed 's/^/    /' "$log"
		[ "$rc" -eq 0 ] && grep '^measured:' "$log" | sed 's/^/    /'
		record "$pass_name" "$rc" "$(seconds_since "$t0")"
	done
}

# The modern cell of the version matrix: the core tests
# (scripts/matrix/core.list) on Debian sid's bpftrace (0.27) and Node.js
# 24, both fetched once into /var/cache/bpfspec-matrix (debootstrap, npm).
run_modern() {
	local bt nb t rc t0=$EPOCHREALTIME
	if ! bt=$(sh "$top/scripts/matrix/bpftrace-root.sh" sid 2>"$BUILD/modern-setup.log") ||
		! nb=$(sh "$top/scripts/matrix/node.sh" 24 2>>"$BUILD/modern-setup.log"); then
		sed 's/^/    /' "$BUILD/modern-setup.log"
		record "modern/setup (bpftrace from Debian sid, node 24)" 1
		return
	fi
	echo "    modern cell: $("$bt" --version 2>&1 | head -1), node $("$nb" --version)" \
		"(ready in $(seconds_since "$t0") s)"
	for t in $(awk '$1 == "node" || $1 == "c" { print $2 }' "$top/scripts/matrix/core.list"); do
		t0=$EPOCHREALTIME
		BPFSPEC_BPFTRACE=$bt BPFSPEC_TEST_NODE=$nb \
			bash "$here/integration/test_$t.sh" >"$BUILD/modern-test_$t.log" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] || sed 's/^/    /' "$BUILD/modern-test_$t.log"
		[ "$rc" -eq 0 ] && grep '^measured:' "$BUILD/modern-test_$t.log" | sed 's/^/    /'
		record "modern/integration/test_$t" "$rc" "$(seconds_since "$t0")"
	done
}

[ $# -gt 0 ] || set -- all
for group in "$@"; do
	case $group in
	layers) run_layers ;;
	unit) run_unit ;;
	golden) run_golden ;;
	integration) run_integration ;;
	modern) run_modern ;;
	all) run_layers; run_unit; run_golden; run_integration ;;
	fuzz)
		# A short pass of every libFuzzer harness (make fuzz runs longer).
		while IFS= read -r line; do
			case $line in
			"ok "*) record "${line#ok }" 0 ;;
			"FAIL "*) record "${line#FAIL }" 1 ;;
			*) echo "    $line" ;;
			esac
		done < <(BUILD=$BUILD bash "$here/fuzz/run.sh" "${FUZZ_SECONDS:-5}" 2>&1)
		;;
	valgrind)
		VALGRIND=1
		run_unit
		unset VALGRIND
		;;
	asan)
		saved=$BUILD
		BUILD=$saved/asan BPFSPEC=$saved/asan/bpfspec SANITIZED=1
		export BUILD BPFSPEC SANITIZED
		prefix=asan/
		run_unit
		run_golden
		[ "${ASAN_INTEGRATION:-0}" = 1 ] && run_integration
		prefix=
		BUILD=$saved BPFSPEC=$saved/bpfspec SANITIZED=0
		;;
	*) echo "run.sh: unknown group '$group'" >&2; exit 2 ;;
	esac
done
for n in "${failed_names[@]+"${failed_names[@]}"}"; do echo "failed: $n"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
