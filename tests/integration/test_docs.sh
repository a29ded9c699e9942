#!/usr/bin/env bash
# The documentation does what it says:
#  (a) docs/spec.schema.json accepts every bundled spec, every spec of
#      tests/golden/good and the spec a one-liner emits, and rejects a set
#      of bad specs that `bpfspec check` rejects too (status 3);
#  (b) real reports (libuv-phases on scripts/workloads/phases.js; file-io,
#      net-connect and an events spec with paths on
#      tests/workloads/node_syscalls.js; one-second -i intervals; loop-why's
#      attribution, stacks and blockers on phases.js) validate against
#      docs/report.schema.json, with no field it does not describe;
#  (c) every `$ ` command of docs/runbook-node-slow.md runs as written
#      (but for its windows: -d 1s for -d 5s, -i 1s -n 2 for -n 5), with
#      PID a running phases.js and DIR a fresh directory, and exits 0, or
#      0 or N where the runbook says "# exits N";
#  (d) completion/bpfspec.bash completes commands, options, formats, spec
#      names and files, and pids;
#  (e) docs/bpfspec.1 renders without a warning and names every option of
#      `bpfspec --help`.
# build: release — the README's and the runbook's commands are run as a
# user runs them, with the release build; the schemas, the completion and
# the man page are the same whatever the build, and its bpfspec commands
# are those that test_libuv_phases, test_why, test_prom and test_oneliners
# run under the sanitizer.
. "$(dirname "$0")/../lib.sh"
need_root

PY=/usr/bin/python3	# Debian's, with python3-jsonschema and python3-yaml
"$PY" -c 'import jsonschema, yaml' 2>/dev/null ||
	fail "python3-jsonschema or python3-yaml is missing: run scripts/setup.sh"
validate() { "$PY" "$TOP/scripts/validate-json-schema.py" "$@"; }
SPEC_SCHEMA=$TOP/docs/spec.schema.json
REPORT_SCHEMA=$TOP/docs/report.schema.json

# ---- (a) the spec schema ------------------------------------------------

validate "$SPEC_SCHEMA" "$TOP"/specs/*.yaml "$TOP"/tests/golden/good/*.yaml ||
	fail "a good spec does not pass docs/spec.schema.json"
set -- "$TOP"/specs/*.yaml "$TOP"/tests/golden/good/*.yaml
echo "measured: specs valid under the spec schema: $#"

# Bad specs the schema can express; each must fail both the schema and
# the loader.
n=0
for name in unknown_key unknown_top_key bad_unit bad_probe_name bad_spec_name bad_kind \
	bad_bool bad_limit bad_function duration_space duration_negative object_path \
	objects_not_list events_all events_keys_on_syscalls syscalls_on_latency \
	function_on_syscalls missing_function missing_syscalls reason_not_optional \
	multiline_description escaped_control quoted_all syscall_twice check_not_list \
	check_relative check_unknown_stat attribute_not_bool attribute_on_syscalls \
	blockers_without_attribute span_string_label; do
	f=$TOP/tests/golden/bad/$name.yaml
	[ -f "$f" ] || fail "$f is missing"
	if validate "$SPEC_SCHEMA" "$f" >"$TMP/schema.out" 2>&1; then
		fail "docs/spec.schema.json accepts tests/golden/bad/$name.yaml"
	fi
	grep -q "^$f: " "$TMP/schema.out" || { cat "$TMP/schema.out"; fail "no error naming $f"; }
	set +e
	"$BPFSPEC" check "$f" >/dev/null 2>&1
	rc=$?
	set -e
	[ "$rc" -eq 3 ] || fail "bpfspec check $name.yaml exited $rc, expected 3"
	n=$((n + 1))
done
echo "measured: bad specs rejected by the schema and the loader: $n"
validate "$SPEC_SCHEMA" "$TOP/tests/golden/bad/unknown_key.yaml" 2>&1 | grep -q "'fucntion' was unexpected" ||
	fail "the schema's error for an unknown key does not name the key"

# The spec a one-liner writes is a spec like any other.
"$BPFSPEC" syscalls openat,read -d 5s --emit-spec >"$TMP/oneliner.yaml" ||
	fail "bpfspec syscalls --emit-spec failed"
validate "$SPEC_SCHEMA" "$TMP/oneliner.yaml" || fail "the emitted syscalls spec fails the schema"
"$BPFSPEC" latency uv__run_timers uv__io_poll --emit-spec >"$TMP/latency.yaml" ||
	fail "bpfspec latency --emit-spec failed"
validate "$SPEC_SCHEMA" "$TMP/latency.yaml" || fail "the emitted latency spec fails the schema"

# ---- (e) the man page ----------------------------------------------------

man_page=$TOP/docs/bpfspec.1
warnings=$(groff -man -Tutf8 -ww -z "$man_page" 2>&1)
[ -z "$warnings" ] || fail "groff warns about docs/bpfspec.1: $warnings"
MANWIDTH=80 man -l "$man_page" >"$TMP/man.txt" 2>"$TMP/man.err" || fail "man -l docs/bpfspec.1 failed"
[ ! -s "$TMP/man.err" ] || fail "man -l docs/bpfspec.1 warns: $(cat "$TMP/man.err")"
for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "SPEC FILES" OUTPUT "EXIT STATUS" \
	ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
	grep -q "^$section\$" "$TMP/man.txt" || fail "the man page has no $section section"
done
# Every long option and command of --help is in the man page.
"$BPFSPEC" --help >"$TMP/help.txt"
for opt in $(grep -o -- '--[a-z][a-z-]*' "$TMP/help.txt" | sort -u) run latency syscalls gen check diff list; do
	grep -q -- "$opt" "$TMP/man.txt" || fail "the man page does not mention $opt (from --help)"
done
for status in 0 1 2 3 4 5 6 7 130; do
	sed -n '/^EXIT STATUS$/,/^ENVIRONMENT$/p' "$TMP/man.txt" | grep -q "^       $status  " ||
		fail "the man page's EXIT STATUS lacks $status"
done
# Every command has a help page, by `bpfspec help CMD` and `bpfspec CMD --help` alike.
for cmd in run gen latency syscalls count diff check list symbols; do
	"$BPFSPEC" help "$cmd" >"$TMP/help-$cmd.txt" || fail "bpfspec help $cmd exited $?"
	grep -q "^usage: bpfspec $cmd" "$TMP/help-$cmd.txt" || fail "bpfspec help $cmd: no usage line"
	"$BPFSPEC" "$cmd" --help >"$TMP/help2-$cmd.txt" || fail "bpfspec $cmd --help exited $?"
	cmp -s "$TMP/help-$cmd.txt" "$TMP/help2-$cmd.txt" ||
		fail "bpfspec help $cmd and bpfspec $cmd --help differ"
done
echo "measured: man page sections, options and exit statuses: ok"

# ---- (d) completion --------------------------------------------------------

mkdir "$TMP/cwd" "$TMP/cwd/sub" "$TMP/bin"
touch "$TMP/cwd/mine.yaml" "$TMP/cwd/other.yml" "$TMP/cwd/notes.txt" "$TMP/cwd/r1.json"
ln -s "$BPFSPEC" "$TMP/bin/bpfspec"
# complete WORD... — the sorted COMPREPLY for the command line WORD...
# (the cursor on the last word), one a line.
complete_words() {
	(cd "$TMP/cwd" && PATH=$TMP/bin:$PATH bash --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_bpfspec
		printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$TOP/completion/bpfspec.bash" "$@")
}
expect_completion() { # expect_completion "WANTED (space-separated)" WORD...
	local want=$1 got
	shift
	got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || fail "completing '$*': got '$got', expected '$want'"
	echo "measured: completion '$*' -> $got"
}
expect_completion "run" bpfspec ru
expect_completion "--output --output-format" bpfspec run libuv-phases --outp
expect_completion "folded html json prom text trace" bpfspec run libuv-phases -o ""
expect_completion "html json prom text trace" bpfspec latency -o ""
expect_completion "json text" bpfspec diff -o ""
expect_completion "folded html json prom text" bpfspec report r1.json -o ""
expect_completion "r1.json sub" bpfspec report ""
expect_completion "--emit-program --emit-spec" bpfspec syscalls --emit
bundled=$("$BPFSPEC" list | awk '/^[^ ]/ {print $1}')
expect_completion "$(printf '%s\n' "$bundled" mine.yaml other.yml sub | sort | tr '\n' ' ' | sed 's/ $//')" \
	bpfspec run ""
expect_completion "libuv-entry libuv-phases" bpfspec run libuv
expect_completion "r1.json sub" bpfspec diff ""
expect_completion "mine.yaml notes.txt other.yml r1.json sub" bpfspec run libuv-phases --output ""
expect_completion "notes.txt" bpfspec gen libuv-phases --binary no
expect_completion "records= threshold=" bpfspec run file-io --set ""
expect_completion "--host-run" bpfspec serve libuv-phases --host
expect_completion "sub" bpfspec serve libuv-phases --host-run ""
expect_completion "threshold=" bpfspec run file-io -p 1 --set th
sleep 30 &
sleeper=$!
cleanup_pid "$sleeper"
complete_words bpfspec run libuv-phases -p "" | grep -qx "$sleeper" ||
	fail "completing -p does not offer pid $sleeper"
complete_words bpfspec run libuv-phases -p "${sleeper:0:2}" | grep -v "^${sleeper:0:2}" |
	grep -q . && fail "completing -p ${sleeper:0:2} offers pids that do not start with it"
echo "measured: completion of -p offers pid $sleeper"

# ---- (b) real reports against the report schema --------------------------

nice -n -10 node "$TOP/scripts/workloads/phases.js" --worker &
phases=$!
cleanup_pid "$phases"

"$BPFSPEC" run libuv-phases -d 2s -o json -- node "$TOP/scripts/workloads/phases.js" \
	>"$TMP/libuv.json" 2>"$TMP/stderr" || { status=$?; cat "$TMP/stderr"; fail "bpfspec run libuv-phases -- node exited $status"; }

start_node_syscalls
target=$TARGET
for spec in "$TOP/specs/file-io.yaml" "$TOP/specs/net-connect.yaml" \
	"$TOP/tests/fixtures/reports/file-io-events.yaml"; do
	out=$TMP/$(basename "$spec" .yaml).json
	"$BPFSPEC" run "$spec" -p "$target" -d 2s -o json >"$out" 2>"$TMP/stderr" ||
		{ status=$?; cat "$TMP/stderr"; fail "bpfspec run $spec exited $status"; }
done
# A spec with a function the target lacks: the not-attached shape.
cat >"$TMP/skip.yaml" <<'YAML'
name: skip-demo
probes:
  - name: timers
    kind: latency
    function: uv__run_timers
  - name: gone
    kind: latency
    function: uv__no_such_function
    optional: true
    missing_reason: absent on purpose
YAML
"$BPFSPEC" run "$TMP/skip.yaml" -p "$phases" -d 1s -o json >"$TMP/skip.json" 2>"$TMP/stderr" ||
	{ status=$?; cat "$TMP/stderr"; fail "bpfspec run skip.yaml exited $status"; }
# One-second intervals: one report per line.
"$BPFSPEC" run libuv-phases -p "$phases" -i 1s -n 2 -o json >"$TMP/intervals.json" 2>"$TMP/stderr" ||
	{ status=$?; cat "$TMP/stderr"; fail "bpfspec run -i 1s -n 2 -o json exited $status"; }
[ "$(wc -l <"$TMP/intervals.json")" -eq 2 ] || fail "-i 1s -n 2 -o json wrote $(wc -l <"$TMP/intervals.json") lines, not 2"
# Attribution: loop-why's attribution, blockers and stack sampling.
"$BPFSPEC" run loop-why -p "$phases" -d 2s -o json --output "$TMP/why.json" 2>"$TMP/stderr" ||
	{ status=$?; cat "$TMP/stderr"; fail "bpfspec run loop-why exited $status"; }

for r in libuv skip file-io net-connect file-io-events intervals why; do
	validate --strict "$REPORT_SCHEMA" "$TMP/$r.json" || fail "the $r report does not match docs/report.schema.json"
done
# The reports hold what the schema's conditional parts are about.
[ "$(jqr "$TMP/skip.json" '[.probes[] | select(.attached == false)] | length')" -eq 1 ] ||
	fail "no probe of skip.yaml was skipped: the schema's not-attached shape went untested"
[ "$(jqr "$TMP/libuv.json" '[.probes[] | select(.derived)] | length')" -eq 2 ] ||
	fail "libuv-phases has no derived phases: the schema's derived field went untested"
[ "$(jqr "$TMP/net-connect.json" '[.probes[].events[]? | select(.address)] | length')" -ge 1 ] ||
	fail "no connect record with an address"
[ "$(jqr "$TMP/net-connect.json" '[.probes[].events[]? | select(.error)] | length')" -ge 1 ] ||
	fail "no record with an error"
[ "$(jqr "$TMP/file-io-events.json" '[.probes[].events[]? | select(.path)] | length')" -ge 1 ] ||
	fail "no event record with a path"
[ "$(jqr "$TMP/why.json" '[.probes[] | select(.attribution) | .groups[] | select(.attribution)] | length')" -ge 1 ] &&
	[ "$(jqr "$TMP/why.json" '[.probes[].stacks[]?] | length')" -ge 1 ] &&
	[ "$(jqr "$TMP/why.json" '.blockers.threshold_ns')" -eq 1000000 ] &&
	[ "$(jqr "$TMP/why.json" '.stack_sampling.hz')" -gt 0 ] ||
	fail "loop-why has no attribution, stacks, blockers or stack_sampling: the schema's attribution went untested"
echo "measured: reports valid under the report schema: libuv-phases, file-io, net-connect, events with paths, 2 intervals, loop-why"
# The schema rejects what it should: a field it does not describe, and a
# latency probe without its statistics.
jq '.probes[0].surprise = 1' "$TMP/libuv.json" >"$TMP/extra.json"
validate --strict "$REPORT_SCHEMA" "$TMP/extra.json" >/dev/null && fail "--strict accepts an undescribed field"
jq 'del(.probes[0].p99_ns)' "$TMP/libuv.json" >"$TMP/nop99.json"
validate "$REPORT_SCHEMA" "$TMP/nop99.json" >/dev/null && fail "the report schema accepts a latency probe without p99_ns"

# ---- (c) the runbook, command by command ---------------------------------

runbook=$TOP/docs/runbook-node-slow.md
# Commands: lines starting with "$ " inside fenced blocks; a line ending
# in "\" continues on the next.  One command per line of the output.
awk '
	/^```/ { fenced = !fenced; next }
	!fenced { next }
	cont { cmd = cmd "\n" $0; cont = /\\$/; if (!cont) { print cmd } ; next }
	/^\$ / { cmd = substr($0, 3); cont = /\\$/; if (!cont) print cmd }
' "$runbook" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
	# Shorter windows than the runbook's 5 s (the commands are what is
	# checked, not their length: the suite has a time budget).
	sed -e 's/ -d 5s/ -d 1s/g' -e 's/ -i 1s -n 5/ -i 1s -n 2/' >"$TMP/commands"
n_commands=$(wc -l <"$TMP/commands")
[ "$n_commands" -ge 10 ] || fail "only $n_commands commands found in the runbook"

export PID=$phases DIR=$TMP/runbook
mkdir "$DIR"
i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	case $cmd in
	bpfspec\ *) ;;
	*) fail "runbook command $i does not start with bpfspec: $cmd" ;;
	esac
	allowed=0
	if [[ $cmd =~ \#\ exits\ ([0-9]+) ]]; then
		allowed="0 ${BASH_REMATCH[1]}"
	fi
	set +e
	PATH=$TMP/bin:$PATH bash -c "$cmd" </dev/null >"$TMP/cmd.out" 2>"$TMP/cmd.err"
	rc=$?
	set -e
	echo "measured: runbook command $i exited $rc (allowed: $allowed): $cmd"
	case " $allowed " in
	*" $rc "*) ;;
	*)
		sed 's/^/    stderr: /' "$TMP/cmd.err" | head -20
		fail "runbook command $i exited $rc, the runbook says $allowed: $cmd" ;;
	esac
	case $cmd in
	*--output\ * | *\>\ \$DIR*) ;;	# writes a file instead
	*) [ -s "$TMP/cmd.out" ] || fail "runbook command $i printed nothing: $cmd" ;;
	esac
done <"$TMP/commands"
# The files the runbook writes are what it says they are.
validate --strict "$REPORT_SCHEMA" "$DIR/before.json" "$DIR/after.json" ||
	fail "the runbook's JSON baselines do not match the report schema"
validate "$SPEC_SCHEMA" "$DIR/node-slow.yaml" || fail "the runbook's emitted spec fails the schema"
grep -q '^# TYPE bpfspec_latency_seconds histogram$' "$DIR/bpfspec.prom" ||
	fail "the runbook's Prometheus file has no latency histogram"
kill -0 "$phases" 2>/dev/null || fail "the workload died during the runbook"
echo "measured: runbook commands run: $i"
