#!/usr/bin/env bash
# The bundled bash-readline spec records exactly the lines an interactive
# bash reads.  tests/workloads/pty_bash.py runs `bash -i` on a
# pseudo-terminal (so that it reads with readline) and, once bpfspec says
# the probes are attached, types the lines below and `exit`.
#
# Known truth: a uretprobe only sees returns from calls that began after it
# was attached, and bash is already inside readline() (waiting at its
# prompt) when tracing starts: the first line typed is NOT recorded.  Every
# later line is, byte for byte (spaces, quotes, backslashes, UTF-8), then
# `exit`; a 250-byte line comes back as its first 199 bytes, marked
# truncated.
. "$(dirname "$0")/../lib.sh"
need_root
[ -x /bin/bash ] || fail "/bin/bash is missing"

long=$(printf 'x%.0s' $(seq 250))
{
	printf '%s\n' 'echo pending-call'
	printf '%s\n' 'echo one'
	printf '%s\n' 'true   spaced   out  '
	printf '%s\n' "echo \"quoted \\\"x\\\"\" 'back\\slash'"
	printf ': caf\xc3\xa9 \xe2\x86\x92 ok\n'
	printf ': %s\n' "$long"
	printf '%s\n' ': last'
} >"$TMP/lines"

start_pty_bash "$TMP/lines"
driver=$pty_driver
target=$pty_bash
"$BPFSPEC" run bash-readline -p "$target" -o json -v >"$TMP/out.json" 2>"$TMP/stderr" &
bpf=$!
cleanup_pid "$bpf"
await_window "$bpf" "$TMP/stderr"
touch "$TMP/go"
set +e
wait "$bpf"
rc=$?
wait "$driver"
driver_rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "bpfspec run exited $rc"; }
[ "$driver_rc" -eq 0 ] || fail "the bash driver exited $driver_rc"

# The truth: every line but the first, then exit; the long one cut.
{
	tail -n +2 "$TMP/lines" | sed "s/^: $long\$/: $(printf '%.197s' "$long")/"
	echo exit
} >"$TMP/want"
jq -j '.probes[0].events[] | .args.line + "\n"' "$TMP/out.json" >"$TMP/got"
diff -u "$TMP/want" "$TMP/got" || fail "recorded lines differ from the lines typed"
n=$(wc -l <"$TMP/want")
echo "measured: lines recorded                $(wc -l <"$TMP/got") (truth $n)"
[ "$(jqr "$TMP/out.json" '.probes[0].count')" -eq "$n" ] || fail "count is not $n"
[ "$(jqr "$TMP/out.json" '[.probes[0].events[] | select(.truncated)] | length')" -eq 1 ] ||
	fail "the long line is not marked truncated"
[ "$(jqr "$TMP/out.json" '.probes[0].events[4].truncated')" = line ] || fail "truncated does not name 'line'"
[ "$(jq -r '[.probes[0].events[].tid] | unique | .[]' "$TMP/out.json")" = "$target" ] ||
	fail "records are not from bash's thread"
/usr/bin/python3 "$TOP/scripts/validate-json-schema.py" "$TOP/docs/report.schema.json" "$TMP/out.json" ||
	fail "the report fails docs/report.schema.json"
echo "ok"
