#!/usr/bin/env bash
# Hostile specs (tests/hostile/*.yaml, and a few generated here because
# they are big): each tries to smuggle bpftrace code into the generated
# program or to break the loader.  For every one, `bpfspec run FILE -p PID`
# must exit 3 with an error that points at FILE:LINE:COL (or, for a file
# that cannot be read as a whole, names the file), print no raw control
# character, and never start bpftrace: BPFSPEC_BPFTRACE is a fake that
# records each call.  `bpfspec gen FILE --binary /usr/bin/node` must not
# print a program.  A valid spec run the same way proves the fake is used.
. "$(dirname "$0")/../lib.sh"
need_root	# the control run below needs tracefs, readable by root only
cd "$TOP"

fake=$TMP/fake-bpftrace
calls=$TMP/bpftrace-calls
cat >"$fake" <<EOF
#!/bin/sh
echo "\$0 \$*" >>"$calls"
exit 1
EOF
chmod +x "$fake"
export BPFSPEC_BPFTRACE=$fake

sleep 600 &
target=$!
cleanup_pid "$target"

# Big ones, generated rather than committed.
gen=$TMP/hostile
mkdir -p "$gen"
# Over the 1 MiB limit: a valid spec padded with comments.
{
	printf 'probes:\n  - name: timers\n    kind: latency\n    function: uv__run_timers\n'
	yes '# padding padding padding padding padding padding padding padding' | head -n 20000
} >"$gen/huge_file.yaml"
# Under the limit, but each part is absurd.
awk 'BEGIN { printf "probes:\n  - name: t\n    kind: latency\n    function: "
	for (i = 0; i < 1000000; i++) printf "f"; printf "\n" }' >"$gen/megabyte_function.yaml"
awk 'BEGIN { printf "probes: "; for (i = 0; i < 400000; i++) printf "[";
	for (i = 0; i < 400000; i++) printf "]"; printf "\n" }' >"$gen/deep_flow_400k.yaml"
awk 'BEGIN { printf "probes:\n"
	for (i = 0; i < 15000; i++) printf "  - name: p%d\n    kind: latency\n    function: f%d\n", i, i }' \
	>"$gen/fifteen_thousand_probes.yaml"
# Errors by the hundred thousand: the loader must still answer at once
# (it shows 50 and counts the rest).
awk 'BEGIN { printf "probes:\n  - name: t\n    kind: latency\n    function: f\n"
	for (i = 0; i < 100000; i++) printf "k%d: 1\n", i }' >"$gen/hundred_thousand_keys.yaml"
awk 'BEGIN { printf "probes:\n"
	for (i = 0; i < 12000; i++) printf "  - name: P%d\n    kind: latency\n    function: \"x}\"\n", i }' \
	>"$gen/twelve_thousand_errors.yaml"
mkdir "$gen/directory.yaml"
for f in "$gen"/*.yaml; do
	[ -d "$f" ] || [ "$(wc -c <"$f")" -gt 100000 ] || fail "$f is too small to be hostile"
done
[ "$(wc -c <"$gen/huge_file.yaml")" -gt 1048576 ] || fail "huge_file.yaml is not over 1 MiB"

# Files rejected as a whole: the error names the file, without a line.
whole_file() {
	case $(basename "$1") in
	utf16.yaml | huge_file.yaml | directory.yaml) return 0 ;;
	esac
	return 1
}

problems=0
bad() { echo "FAIL: $*" >&2; problems=$((problems + 1)); }

n=0
rejected=0
slowest=0
slowest_name=
for f in tests/hostile/*.yaml "$gen"/*.yaml /dev/zero; do
	name=${f#"$TOP"/}
	n=$((n + 1))
	before=$problems
	rm -f "$calls"
	t0=$(date +%s%N)
	set +e
	timeout 10 "$BPFSPEC" run "$f" -p "$target" -d 1 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	set -e
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -le "$slowest" ] || { slowest=$ms; slowest_name=$name; }
	if [ "$rc" -eq 124 ]; then
		bad "$name: bpfspec run still busy after 10 s (killed)"
		continue
	fi
	[ "$rc" -eq 3 ] || { cat "$TMP/err" >&2; bad "$name: exit status $rc, expected 3"; }
	[ ! -e "$calls" ] || bad "$name: bpftrace was started: $(cat "$calls")"
	[ ! -s "$TMP/out" ] || bad "$name: run printed on stdout: $(head -c 300 "$TMP/out")"
	grep -q "error:" "$TMP/err" || { cat "$TMP/err" >&2; bad "$name: no 'error:' on stderr"; }
	# Locations: "bpfspec: FILE:LINE:COL: error: ..." (the path as given).
	if whole_file "$f" || [ "$f" = /dev/zero ]; then
		grep -qF -- "$f" "$TMP/err" || { cat "$TMP/err" >&2; bad "$name: the error does not name the file"; }
	else
		grep -q "^bpfspec: ${f//./\\.}:[0-9][0-9]*:[0-9][0-9]*: error: " "$TMP/err" ||
			{ cat "$TMP/err" >&2; bad "$name: no FILE:LINE:COL error"; }
	fi
	# What the spec holds is echoed in messages: never raw control bytes
	# (terminal escapes, CR, NUL).
	raw=$(wc -c <"$TMP/err")
	clean=$(tr -d '\000-\010\013-\037\177' <"$TMP/err" | wc -c)
	[ "$raw" -eq "$clean" ] || bad "$name: stderr holds $((raw - clean)) raw control bytes"
	# A few dozen lines at most, however many problems the file has.
	[ "$(wc -l <"$TMP/err")" -le 400 ] || bad "$name: $(wc -l <"$TMP/err") lines of errors"

	set +e
	timeout 10 "$BPFSPEC" gen "$f" --binary /usr/bin/node >"$TMP/out" 2>"$TMP/err"
	rc=$?
	set -e
	[ "$rc" -eq 3 ] || { cat "$TMP/err" >&2; bad "$name: gen exited $rc, expected 3"; }
	[ ! -s "$TMP/out" ] || bad "$name: gen printed a program: $(head -c 300 "$TMP/out")"
	[ ! -e "$calls" ] || bad "$name: gen started bpftrace"
	[ "$problems" -ne "$before" ] || rejected=$((rejected + 1))
done
[ "$n" -ge 30 ] || bad "only $n hostile specs"
echo "measured: slowest rejection: $slowest_name in $slowest ms"

# The control: a valid spec does reach the fake bpftrace (exit 5: it
# "failed"), so "never started" above means something.
cat >"$TMP/valid.yaml" <<'YAML'
probes:
  - name: io
    kind: syscalls
    syscalls: [openat]
YAML
set +e
"$BPFSPEC" run "$TMP/valid.yaml" -p "$target" -d 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
[ -s "$calls" ] || { cat "$TMP/err" >&2; bad "control: the fake bpftrace was not started (exit $rc)"; }
[ "$rc" -eq 5 ] || { cat "$TMP/err" >&2; bad "control: exit status $rc, expected 5"; }
echo "measured: control spec started the fake bpftrace and exited $rc"
if [ "$rejected" -eq "$n" ]; then
	echo "measured: $n hostile specs rejected, bpftrace never started"
else
	echo "measured: $rejected of $n hostile specs rejected as expected"
fi
[ "$problems" -eq 0 ] || fail "$problems problems (listed above)"
