#!/usr/bin/env bash
# Every generated program compiles on the bpftrace that runs it without a
# single warning: each case of tests/golden/gen/cases is generated for the
# node on PATH (the version matrix's BPFSPEC_TEST_NODE, or the host's) and
# for the bpftrace bpfspec would start (BPFSPEC_BPFTRACE, or the one on
# PATH), then compiled with nothing attached (--dry-run from 0.22, -d
# before).  Users see bpftrace's warnings as bpfspec's noise.  Then the
# programs of four specs for processes of two executables (two copies of
# node: every uprobe on both files) compile the same way.
#
# Two lines are the machine's, not the program's, and are left out:
# RLIMIT_MEMLOCK (bpfspec shows it only with -v) and, for programs with no
# kernel-function probe, 0.25+'s note that available_filter_functions is
# unreadable (the same).  A case with kprobes runs only where the kernel
# has them (CONFIG_KPROBES is off on some machines: bpftrace then rejects
# every kprobe, which is the kernel's answer, not a warning).
# build: release — the sanitizer build generates every one of these cases
# in its golden run (tests/golden/gen_specs.sh); what is left here is
# bpftrace's compile of the same text, which the build does not change.
. "$(dirname "$0")/../lib.sh"
need_root
cd "$TOP"

bpftrace=${BPFSPEC_BPFTRACE:-bpftrace}
version=$("$bpftrace" --version 2>/dev/null | sed -n 's/.* v\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
[ -n "$version" ] || fail "cannot read the version of $bpftrace"
read -r major minor <<<"$version"
node_bin=$(readlink -f "$(command -v node)") || fail "no node on PATH"
# The settings bpfspec's runner gives this version (gen/run/runner.c).
if [ "$major" -gt 0 ] || [ "$minor" -ge 20 ]; then
	export BPFTRACE_MAX_MAP_KEYS=16384 BPFTRACE_MAX_STRLEN=200
else
	export BPFTRACE_MAP_KEYS_MAX=16384 BPFTRACE_STRLEN=200
fi
if [ "$major" -gt 0 ] || [ "$minor" -ge 22 ]; then dry=--dry-run; else dry=-d; fi
kprobes=no
[ -e /sys/kernel/tracing/kprobe_events ] && kprobes=yes

# compile NAME — bpftrace compiles $TMP/NAME.bt silently (counted in
# compiled or failed; skipped when it has kprobes and the kernel none).
compile() {
	local name=$1 kernel_functions rc noise
	kernel_functions=no
	grep -Eq '^(kprobe|kretprobe|kfunc|kretfunc|fentry|fexit):' "$TMP/$name.bt" && kernel_functions=yes
	if [ $kernel_functions = yes ] && [ $kprobes = no ]; then
		echo "measured: $name not compiled: it has kprobes and this kernel has none"
		return
	fi
	rc=0
	"$bpftrace" "$dry" "$TMP/$name.bt" >"$TMP/$name.out" 2>&1 || rc=$?
	noise='RLIMIT_MEMLOCK'
	[ $kernel_functions = no ] && noise="$noise|available_filter_functions"
	if [ "$rc" -ne 0 ] || grep -Ev "$noise" "$TMP/$name.out" | grep -Eq 'WARNING|ERROR|HINT'; then
		echo "$name: bpftrace $major.$minor $dry: exit $rc" >&2
		grep -Ev "$noise" "$TMP/$name.out" | grep -E -A2 'WARNING|ERROR|HINT' | head -12 |
			sed 's/^/    /' >&2
		failed=$((failed + 1))
		return
	fi
	compiled=$((compiled + 1))
}

compiled=0
failed=0
while read -r name spec binary opts; do
	case $name in '' | '#'*) continue ;; esac
	[ "$binary" = /usr/bin/node ] && binary=$node_bin
	# shellcheck disable=SC2086
	set -- $opts
	target=(--binary "$binary")
	if [[ " $opts " == *" @"[0-9]* ]]; then
		# Real processes (-p @K: tests/golden/gen_specs.sh).
		n=$(printf '%s\n' "$@" | sed -n 's/^@\([0-9]*\)$/\1/p' | sort -n | tail -1)
		start_procs "$binary" "$n"
		mapfile -t args < <(pid_options "$@")
		set -- "${args[@]}"
		target=()
	fi
	if ! BPFSPEC_BPFTRACE=$bpftrace "$BPFSPEC" gen "$spec" "${target[@]}" "$@" \
		>"$TMP/$name.bt" 2>"$TMP/$name.err"; then
		echo "$name: bpfspec gen failed:" >&2
		sed 's/^/    /' "$TMP/$name.err" >&2
		failed=$((failed + 1))
		continue
	fi
	compile "$name"
done <tests/golden/gen/cases
# One program for processes of two executables (copies of node at two
# paths: each uprobe on both files, resolve_join).
mkdir -m 700 "$TMP/copies"
copies=()
for k in 1 2; do
	cp "$node_bin" "$TMP/copies/node$k"
	"$TMP/copies/node$k" <"$TMP/stdin" >/dev/null 2>&1 &
	copies+=(-p "$!")
	cleanup_pid "$!"
done
sleep 0.3
for spec in libuv-phases libuv-entry loop-utilization tests/golden/gen/count-node.yaml; do
	name=two-executables-$(basename "$spec" .yaml)
	if ! BPFSPEC_BPFTRACE=$bpftrace "$BPFSPEC" gen "$spec" "${copies[@]}" >"$TMP/$name.bt" \
		2>"$TMP/$name.err"; then
		echo "$name: bpfspec gen failed:" >&2
		sed 's/^/    /' "$TMP/$name.err" >&2
		failed=$((failed + 1))
		continue
	fi
	compile "$name"
done

echo "measured: bpftrace $major.$minor ($dry), node $("$node_bin" --version): $compiled programs compiled silently, $failed did not"
[ "$failed" -eq 0 ] || fail "$failed generated programs are not clean on bpftrace $major.$minor"
[ "$compiled" -ge 10 ] || fail "only $compiled programs were compiled"
