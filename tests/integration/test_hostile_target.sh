#!/usr/bin/env bash
# A traced process that makes its own visible strings hostile cannot get a
# raw control byte, a bidirectional override or invalid UTF-8 into any
# output of bpfspec, and the strings are shown, not dropped.
#
# tests/workloads/hostile_names.c names its threads with terminal escapes,
# 0x9b, U+202E and invalid UTF-8, opens files whose names hold ESC
# sequences, an OSC 52 clipboard write, BEL, CR, LF, 0x9b, U+202E, invalid
# UTF-8, a backslash and a 4 KB path, and fires a USDT probe with a hostile
# string.  One copy runs from a plain path, one from a directory whose name
# holds ESC, a newline and U+202E.  An interactive bash reads a line with
# ESC, BEL and U+202E typed literally (Ctrl-V).  Then, in text, JSON and
# Prometheus output: file-io (paths, threads, the executable), syscall-latency
# (per-thread table), the count and latency one-liners (per-thread tables),
# an events spec on the USDT probe, bash-readline; `symbols` on the hostile
# path; and the errors that quote it.
#
# Checked for every output and every stderr: valid UTF-8, no control byte
# but newline (tabs only in `symbols`' columns), no C1, bidi, zero-width or
# separator code point (tests/check_safe_output.py); JSON parses; prom
# passes promtool.  And what the reader sees: the escape forms of
# docs/report.md in text, prom label values equal to the text form, JSON
# strings equal to the real ones (FIELD_hex with the exact bytes where they
# are not UTF-8), hostile thread names cut to their column with the rows
# still aligned.
. "$(dirname "$0")/../lib.sh"
need_root
cd "$TOP"
command -v promtool >/dev/null || fail "promtool is missing: run scripts/setup.sh"

check_safe() { # check_safe [--tabs] [--json] FILE... — see tests/check_safe_output.py
	python3 tests/check_safe_output.py "$@" || fail "unsafe output (above)"
}
hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }

gcc -O1 -g -pthread -Wall -Werror -o "$TMP/hostile_names" tests/workloads/hostile_names.c

# A directory name with ESC, a newline and U+202E, and a copy of the
# workload in it.
hdir="$TMP/bin"$'\e[31m\n\xe2\x80\xae'
mkdir "$hdir"
cp "$TMP/hostile_names" "$hdir/hostile_names"
files=$TMP/files
mkdir "$files"

# start BINARY — runs BINARY for 120 s, waits for "ready"; sets $started.
start() {
	local out=$TMP/ready.$RANDOM
	"$1" "$files" 120 >"$out" &
	started=$!
	cleanup_pid "$started"
	for _ in $(seq 100); do
		grep -q ready "$out" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "$1 did not start"
}
start "$TMP/hostile_names"
plain=$started
start "$hdir/hostile_names"
hostile=$started

main_name=$'\e[31mRED\e]0;x\a'
worker_name=$'\x9b\xe2\x80\xae\xff\xfe\rw\\'
bad_file="$files/bad"$'\xff\xfe'

cat >"$TMP/usdt.yaml" <<'YAML'
name: hostile-usdt
probes:
  - name: said
    kind: events
    probe: "usdt:main:hostile:name"
    limit: 5
    args:
      - {name: text, value: arg0, type: string}
YAML

runs=()
# run NAME CMD... — runs bpfspec, output to $TMP/NAME.out, stderr to .err.
run() {
	local name=$1 rc
	shift
	set +e
	"$BPFSPEC" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	set -e
	[ "$rc" -eq 0 ] || { cat "$TMP/$name.err"; fail "$name: bpfspec $* exited $rc"; }
	runs+=("$name")
}
for fmt in text json prom; do
	run "fileio.$fmt" run file-io -p "$hostile" --set threshold=0 --set records=200 -d 1 -o "$fmt"
	run "syscalls.$fmt" run syscall-latency -p "$hostile" -d 1 -o "$fmt"
	run "count.$fmt" count -p "$hostile" tracepoint:syscalls:sys_enter_openat -d 1 -o "$fmt"
	run "latency.$fmt" latency -p "$plain" hostile_work -d 1 -o "$fmt"
	run "usdt.$fmt" run "$TMP/usdt.yaml" -p "$plain" -d 1 -o "$fmt"
done

for name in "${runs[@]}"; do
	case $name in
	*.json) check_safe --json "$TMP/$name.out" ;;
	*) check_safe "$TMP/$name.out" ;;
	esac
	check_safe "$TMP/$name.err"
	case $name in
	*.prom) promtool check metrics <"$TMP/$name.out" >"$TMP/promtool.log" 2>&1 ||
		{ cat "$TMP/promtool.log"; fail "promtool rejects $name"; } ;;
	esac
done
echo "measured: ${#runs[@]} runs, every output and stderr safe; promtool accepts the prom ones"

# ---- what the text shows ----------------------------------------------
want() { # want FILE TEXT — FILE holds TEXT (fixed string)
	grep -qF -- "$2" "$1" || { cat "$1"; fail "$(basename "$1") lacks: $2"; }
}
t=$TMP/fileio.text.out
want "$t" "pid $hostile ($TMP/bin\\x1b[31m\\x0a\\u202e/hostile_names)"
want "$t" "$files/\\x1b[2J\\x1b[31mevil"
want "$t" "$files/\\x1b]52;c;aGk=\\x07"
want "$t" "$files/bell\\x07cr\\x0d\\x0alf"
want "$t" "$files/csi\\x9b31m"
want "$t" "$files/rlo\\u202etxt"
want "$t" "$files/bad\\xff\\xfe"
want "$t" "$files/back\\\\slash"
want "$t" "\\x1b[31mRED..  "	# the main thread, cut to its 16 columns
want "$t" "\\x9b\\u202e\\xff.. "	# the worker
want "$TMP/usdt.text.out" "text=\"\\x1b]52;c;aGk=\\x07\\u202e\\x9b\\xff\""

# Per-thread tables: a hostile name is cut to the THREAD column and the
# count that follows it ends in the same column on every row.
aligned() { # aligned FILE — rows of the per-thread table that follows "TID"
	awk -v f="$1" '
		/^  TID +THREAD/ { table = 1; hdr = index($0, "COUNT") + 4; next }
		table && /^  [0-9]+ / { rows++; if (substr($0, hdr, 1) !~ /[0-9]/ || substr($0, hdr + 1, 1) !~ /^( |)$/) { print f ": misaligned row: " $0; bad = 1 } next }
		table { table = 0 }
		END { if (!rows) { print f ": no per-thread rows"; bad = 1 } exit bad }' "$1" ||
		fail "per-thread table of $(basename "$1") is misaligned"
}
aligned "$TMP/count.text.out"
aligned "$TMP/latency.text.out"
want "$TMP/count.text.out" "\\x1b[31mRED.. (main) "
want "$TMP/latency.text.out" "\\x9b\\u202e\\xff\\xfe..  "

# ---- JSON: the real strings, FIELD_hex where they are not UTF-8 --------
j=$TMP/fileio.json.out
[ "$(jq -r '.target.binary' "$j")" = "$hdir/hostile_names" ] ||
	fail "target.binary is not the executable's path"
[ "$(jq --arg t "$main_name" '[.probes[].events[]? | select(.thread == $t)] | length' "$j")" -gt 0 ] ||
	fail "no event carries the main thread's name as it is"
[ "$(jq --arg h "$(hex "$worker_name")" '[.probes[].events[]? | select(.thread_hex == $h)] | length' "$j")" -gt 0 ] ||
	fail "no event carries the worker's exact name in thread_hex"
[ "$(jq --arg h "$(hex "$bad_file")" '[.probes[].events[]? | select(.path_hex == $h)] | length' "$j")" -gt 0 ] ||
	fail "no event carries $(printf %q "$bad_file") in path_hex"
[ "$(jq --arg p "$files/"$'\e[2J\e[31mevil' '[.probes[].events[]? | select(.path == $p)] | length' "$j")" -gt 0 ] ||
	fail "no event carries the ESC path as it is"
[ "$(jq --arg h "$(hex $'\e]52;c;aGk=\a\xe2\x80\xae\x9b\xff')" '[.probes[0].events[] | select(.args_hex.text == $h)] | length' "$TMP/usdt.json.out")" -gt 0 ] ||
	fail "the USDT string's exact bytes are not in args_hex"
/usr/bin/python3 scripts/validate-json-schema.py docs/report.schema.json "$TMP"/*.json.out ||
	fail "a report does not match docs/report.schema.json"
echo "measured: JSON keeps the strings; thread_hex, path_hex, args_hex give the exact bytes"

# ---- prom: label values are the text form ------------------------------
want "$TMP/syscalls.prom.out" 'thread="\\x1b[31mRED\\x1b]0;x\\x07"'
want "$TMP/syscalls.prom.out" 'binary="'"$TMP"'/bin\\x1b[31m\\x0a\\u202e/hostile_names"'

# ---- symbols and errors quoting the hostile path -------------------------
run symbols.text symbols --binary "$hdir/hostile_names" 'hostile*'
run symbols.json symbols --binary "$hdir/hostile_names" -o json 'hostile*'
check_safe --tabs "$TMP/symbols.text.out"
check_safe --json "$TMP/symbols.json.out"
want "$TMP/symbols.text.out" "function	$TMP/bin\\x1b[31m\\x0a\\u202e/hostile_names	hostile_work"
set +e
"$BPFSPEC" latency -p "$hostile" hostile_work -d 1 >"$TMP/err.out" 2>"$TMP/err.err"
rc=$?
"$BPFSPEC" symbols --binary "$hdir/no-such"$'\e]0;t\a' >"$TMP/err2.out" 2>"$TMP/err2.err"
rc2=$?
set -e
[ "$rc" -ne 0 ] || fail "a latency probe in a file bpftrace cannot name was accepted"
[ "$rc2" -ne 0 ] || fail "symbols of a missing file exited 0"
for f in err.out err.err err2.out err2.err; do check_safe "$TMP/$f"; done
want "$TMP/err.err" "$TMP/bin\\x1b[31m\\x0a\\u202e/hostile_names"
want "$TMP/err2.err" "no-such\\x1b]0;t\\x07"
awk '!/^(bpfspec: |hint: )/ { print "a line broken by the path: " $0; bad = 1 } END { exit bad }' \
	"$TMP/err.err" "$TMP/err2.err" || fail "an error message was broken in two"
echo "measured: errors quote the hostile path on one line: $(head -c 160 "$TMP/err.err")"

# ---- bash-readline: a line with ESC, BEL and U+202E typed literally -----
printf 'echo start\n: red \x16\x1b[31m bell \x16\x07 rlo \xe2\x80\xae end\n' >"$TMP/lines"
for fmt in text json; do
	start_pty_bash "$TMP/lines"
	"$BPFSPEC" run bash-readline -p "$pty_bash" -o "$fmt" -v \
		>"$TMP/bash.$fmt.out" 2>"$TMP/bash.$fmt.err" &
	bpf=$!
	cleanup_pid "$bpf"
	await_window "$bpf" "$TMP/bash.$fmt.err"
	touch "$TMP/go"
	wait "$bpf" || { cat "$TMP/bash.$fmt.err"; fail "bash-readline -o $fmt failed"; }
	wait "$pty_driver" || fail "the bash driver exited $?"
	check_safe "$TMP/bash.$fmt.err"
done
check_safe "$TMP/bash.text.out"
check_safe --json "$TMP/bash.json.out"
want "$TMP/bash.text.out" 'line=": red \x1b[31m bell \x07 rlo \u202e end"'
[ "$(jq -r '.probes[0].events[].args.line' "$TMP/bash.json.out" | grep -c $'red \e\[31m bell \a rlo \xe2\x80\xae end')" -eq 1 ] ||
	fail "bash-readline JSON lacks the line as typed"
echo "measured: bash-readline shows the typed ESC, BEL and U+202E as \\x1b, \\x07, \\u202e"
