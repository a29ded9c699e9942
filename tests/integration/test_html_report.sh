#!/usr/bin/env bash
# -o html and `bpfspec report -o html`, opened in a real browser: Debian's
# chromium driven by playwright-core (scripts/setup.sh installs both;
# tests/browser/check_html.mjs is the check).  Each page must load from
# file:// with no console error, page error or request (its policy forbids
# every fetch), draw exactly the report's buckets (a bar per bucket for one
# report, a pixel of a canvas per bucket and interval for a stream), and
# show a cell's count on hover; a screenshot of each is kept beside the binary (e.g.
# build/html-screenshots/, out of the repository) for a person to look at.
# Pages:
#  - a live stream: libuv-phases on scripts/workloads/phases.js --worker
#    --http (its HTTP server and client give http-server's page routes),
#    four 1 s intervals saved as NDJSON, then `bpfspec report -o html`;
#    the same run's last interval alone (a single report); those four
#    intervals 900 times over, an hour at -i 1;
#  - `run -o html -i` written by the run itself (checked for form: no
#    report is kept beside it);
#  - a window of each bundled spec with a mix of kinds of its own
#    (bash-readline, file-io, http-server, libuv-phases, loop-utilization,
#    loop-why, threadpool): the others' pages are these pages' (libuv-entry
#    and v8-gc are libuv-phases' latency probes; memory and net-connect
#    file-io's syscalls and events; syscall-latency file-io's syscalls),
#    and node-usdt-http needs USDT probes Debian's node has not;
#  - every saved report of tests/fixtures/reports (probes not attached,
#    events, syscalls, utilization, count, USDT, names a hostile process
#    chose);
#  - an empty window: syscalls of a process that makes none.
. "$(dirname "$0")/../lib.sh"
need_root

npm_dir=${BPFSPEC_NPM_DIR:-/var/cache/bpfspec-npm}
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is missing: run scripts/setup.sh"
[ -f "$npm_dir/node_modules/playwright-core/package.json" ] ||
	fail "playwright-core is missing from $npm_dir: run scripts/setup.sh"

shots=$(dirname "$BPFSPEC")/html-screenshots
mkdir -p "$shots"
pages=0
check_page() { # check_page PAGE.html REPORT.json|REPORT.ndjson|- NAME
	# Checked together at the end, in one browser (check_queued_pages).
	queued+=("$1" "$2" "$shots/$3.png")
	pages=$((pages + 1))
}
queued=()
check_queued_pages() {
	[ "${#queued[@]}" -gt 0 ] || return 0
	local rc=0
	node "$TOP/tests/browser/check_html.mjs" "${queued[@]}" >"$TMP/pages.check" 2>&1 || rc=$?
	sed 's/^/    /' "$TMP/pages.check" | grep -v '^    measured:' >&2
	grep '^measured:' "$TMP/pages.check"
	[ "$rc" -eq 0 ] || fail "the browser check failed (status $rc): $(grep -c '^FAIL: .*problem(s)$' "$TMP/pages.check") page(s) with problems, above"
}
render() { # render REPORT PAGE.html
	"$BPFSPEC" report "$1" -o html --output "$2" 2>"$TMP/err" ||
		{ status=$?; cat "$TMP/err"; fail "bpfspec report $1 -o html exited $status"; }
}

node "$TOP/scripts/workloads/phases.js" --worker --http &
app=$!
cleanup_pid "$app"
sleep 1.5

# A stream of four intervals, rendered later from its NDJSON.
"$BPFSPEC" run libuv-phases -p "$app" -i 1 -n 4 -o json >"$TMP/stream.ndjson" 2>"$TMP/err" ||
	{ status=$?; cat "$TMP/err"; fail "run -i 1 -n 4 -o json exited $status"; }
[ "$(wc -l <"$TMP/stream.ndjson")" -eq 4 ] || fail "the stream has $(wc -l <"$TMP/stream.ndjson") lines, not 4"
render "$TMP/stream.ndjson" "$TMP/stream.html"
check_page "$TMP/stream.html" "$TMP/stream.ndjson" stream
tail -n 1 "$TMP/stream.ndjson" >"$TMP/last.json"
render "$TMP/last.json" "$TMP/last.html"
check_page "$TMP/last.html" "$TMP/last.json" last-interval
# An hour at -i 1: the stream's intervals again and again, 3,600 in all.
for _ in $(seq 900); do cat "$TMP/stream.ndjson"; done >"$TMP/hour.ndjson"
render "$TMP/hour.ndjson" "$TMP/hour.html"
echo "measured: 3,600 intervals: a page of $(($(stat -c %s "$TMP/hour.html") / 1024)) KiB from $(($(stat -c %s "$TMP/hour.ndjson") / 1024)) KiB of NDJSON"
check_page "$TMP/hour.html" "$TMP/hour.ndjson" hour
# The page's summary is the stream's: its timers count is the intervals'.
want=$(jq -s '[.[].probes[] | select(.name == "timers") | .count] | add' "$TMP/stream.ndjson")
grep -q "<tr data-probe=\"timers\"><td>timers</td><td>latency</td><td data-sort=\"$want\">" "$TMP/stream.html" ||
	fail "the summary's timers count is not the intervals' sum $want"
echo "measured: summary timers count $want = the four intervals' counts added"

# The run writes the page itself: every interval kept, one page at the end.
"$BPFSPEC" run libuv-phases -p "$app" -i 1 -n 3 -o html --output "$TMP/live.html" 2>"$TMP/err" ||
	{ status=$?; cat "$TMP/err"; fail "run -i 1 -n 3 -o html exited $status"; }
grep -q 'data-intervals="3"' "$TMP/live.html" || fail "the live page does not have 3 intervals"
check_page "$TMP/live.html" - live

# A spec with phases and the loop's utilization: each thread's busy strip
# is drawn above its phase heatmaps too.
cat >"$TMP/busy.yaml" <<'YAML'
name: phases-and-busy
description: the timers phase and the loop's busy share
objects: [main, "libuv.so*"]
probes:
  - name: timers
    kind: latency
    function: uv__run_timers
  - name: loop
    kind: utilization
YAML
"$BPFSPEC" run "$TMP/busy.yaml" -p "$app" -i 0.5 -n 4 -o json >"$TMP/busy.ndjson" 2>"$TMP/err" ||
	{ status=$?; cat "$TMP/err"; fail "run phases-and-busy -i 0.5 -n 4 exited $status"; }
render "$TMP/busy.ndjson" "$TMP/busy.html"
check_page "$TMP/busy.html" "$TMP/busy.ndjson" phases-and-busy
strips=$(grep -c '<figure class="util"' "$TMP/busy.html")
# One per thread in its own section, and one above each timers heatmap of
# a thread the utilization probe measured.
want=$(jq -s '([.[].probes[] | select(.kind == "utilization") | .groups[].tid] | unique) as $u |
	([.[].probes[] | select(.name == "timers") | .groups[].tid] | unique) as $t |
	($u | length) + ([$t[] | select(. as $x | $u | index($x))] | length)' "$TMP/busy.ndjson")
echo "measured: phases-and-busy: $strips busy strips (want $want)"
[ "$strips" -eq "$want" ] && [ "$strips" -gt 2 ] ||
	fail "$strips busy strips, expected $want (each loop thread's, and above its timers heatmap)"

# A window of each bundled spec with a mix of kinds of its own (see the
# header), on the node demo (bash-readline on an interactive bash).
# node-usdt-http needs a node built with USDT probes, which Debian's is
# not (its run says so, exit 4): a USDT report is among the saved ones
# below (hostile-usdt).
specs=$("$BPFSPEC" list | awk '/^[a-z]/ { print $1 }')
for spec in $specs; do
	case $spec in
	node-usdt-http | libuv-entry | v8-gc | memory | net-connect | syscall-latency) continue ;;
	bash-readline)
		printf 'echo one\necho two\n' >"$TMP/lines"
		start_pty_bash "$TMP/lines"
		: >"$TMP/bash.err"
		# Its window lasts until bash exits, after the lines.
		"$BPFSPEC" run bash-readline -p "$pty_bash" -o json -v >"$TMP/spec-$spec.json" \
			2>"$TMP/bash.err" &
		bpf=$!
		await_window "$bpf" "$TMP/bash.err"
		touch "$TMP/go"
		rc=0
		wait "$bpf" || rc=$?
		[ "$rc" -eq 0 ] || { cat "$TMP/bash.err"; fail "run bash-readline -o json exited $rc"; }
		wait "$pty_driver" || fail "the bash driver exited $?" ;;
	*)
		"$BPFSPEC" run "$spec" -p "$app" -d 1 -o json >"$TMP/spec-$spec.json" 2>"$TMP/err" ||
			{ status=$?; cat "$TMP/err"; fail "run $spec -d 1 -o json exited $status"; } ;;
	esac
	render "$TMP/spec-$spec.json" "$TMP/spec-$spec.html"
	check_page "$TMP/spec-$spec.html" "$TMP/spec-$spec.json" "spec-$spec"
done

# Saved reports of every kind, and names chosen by a hostile process.
for f in "$TOP"/tests/fixtures/reports/*.json; do
	name=fixture-$(basename "$f" .json)
	render "$f" "$TMP/$name.html"
	check_page "$TMP/$name.html" "$f" "$name"
done

# A syscall measured early and not in the last interval is still on the
# page: the syscalls' table and figures are over the whole stream.
fio=$TOP/tests/fixtures/reports/file-io.json
{ jq -c . "$fio"; jq -c . "$fio"
  jq -c '(.probes[] | select(.kind == "syscalls") | .syscalls) |= map(select(.syscall != "read"))' "$fio"
} >"$TMP/fio.ndjson"
render "$TMP/fio.ndjson" "$TMP/fio.html"
check_page "$TMP/fio.html" "$TMP/fio.ndjson" syscalls-stream
grep -q 'data-syscall="read"' "$TMP/fio.html" || fail "read, absent from the last interval, has no figure"

# An empty window: a process that makes no syscall in it.
sleep 30 &
sleeper=$!
cleanup_pid "$sleeper"
"$BPFSPEC" syscalls -p "$sleeper" openat,read -d 1 -o json >"$TMP/empty.json" 2>"$TMP/err" ||
	{ status=$?; cat "$TMP/err"; fail "syscalls on a sleeping process exited $status"; }
[ "$(jqr "$TMP/empty.json" '.probes[0].count')" -eq 0 ] || fail "the empty window has calls"
render "$TMP/empty.json" "$TMP/empty.html"
check_page "$TMP/empty.html" "$TMP/empty.json" empty

# Errors: a stream cannot be one Prometheus scrape; a bad line is named.
set +e
"$BPFSPEC" report "$TMP/stream.ndjson" -o prom >/dev/null 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "holds 4 reports" "$TMP/err" || fail "report -o prom of a stream: exit $rc, $(cat "$TMP/err")"
{ head -n 2 "$TMP/stream.ndjson"; echo '{"schema": 1}'; } >"$TMP/bad.ndjson"
set +e
"$BPFSPEC" report "$TMP/bad.ndjson" -o html --output "$TMP/bad.html" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -eq 3 ] && grep -q "bad.ndjson, line 3: " "$TMP/err" || fail "a bad line: exit $rc, $(cat "$TMP/err")"
[ ! -e "$TMP/bad.html" ] || fail "a page was written for a stream that could not be read"
echo "measured: report of a bad stream: exit 3, $(head -n 1 "$TMP/err")"
# An output that cannot be replaced (a directory): exit 6, said once.
mkdir "$TMP/outdir"
for fmt in text html; do
	set +e
	"$BPFSPEC" report "$TMP/stream.ndjson" -o "$fmt" --output "$TMP/outdir" 2>"$TMP/err"
	rc=$?
	set -e
	[ "$rc" -eq 6 ] && grep -q "cannot replace" "$TMP/err" ||
		fail "report -o $fmt --output DIR: exit $rc, $(cat "$TMP/err")"
done
echo "measured: report --output DIR: exit 6, $(head -n 1 "$TMP/err")"
check_queued_pages
echo "measured: $pages pages passed the browser check; screenshots in $shots"
