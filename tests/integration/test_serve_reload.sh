#!/usr/bin/env bash
# bpfspec serve's SIGHUP, on a spec file it serves (a copy of
# libuv-phases) and one node workload (scripts/workloads/phases.js).
# Truth:
#   - a scrape passes `promtool check metrics` (Debian's prometheus
#     package), serve's own families and the store's alike;
#   - the spec file broken (a line that is not YAML), then SIGHUP: serve
#     says the specs did not load and goes on: no restart
#     (bpfspec_restarts_total absent), bpfspec_up stays 1, the timers
#     count keeps growing;
#   - the file mended, with the probe `check` removed, then SIGHUP: serve
#     restarts its child (bpfspec_restarts_total 1), bpfspec_up is 1 again,
#     and the new program has one pair fewer (bpfspec_probes_attached two
#     less: `check` is an entry and a return); the totals gathered before
#     stay (the timers count never falls, the check series stays).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prom.sh"
need_root

node "$TOP/scripts/workloads/phases.js" "bpfspec-test-$$-reload" &
app=$!
cleanup_pid "$app"
spec=$TMP/phases.yaml
cp "$TOP/specs/libuv-phases.yaml" "$spec"
start_serve "$spec" --target "r=cmdline=bpfspec-test-$$-[r]eload" --listen 127.0.0.1:0 --interval 2s
m=$TMP/metrics.txt
sel='spec="libuv-phases",target="r"'

# value NAME{LABELS} — the sample's value in the last scrape, or empty.
value() { awk -v k="$1" 'index($0, k " ") == 1 { print $NF }' "$m"; }
# up_then WHAT — waits (60 s) for bpfspec_up 1 and a timers count.
up_then() {
	for ((i = 0; i < 120; i++)); do
		scrape "$m"
		[ "$(value "bpfspec_up{$sel}")" = 1 ] &&
			[ -n "$(value "bpfspec_latency_seconds_count{spec=\"libuv-phases\",probe=\"timers\",target=\"r\",thread_role=\"main\"}")" ] &&
			return 0
		sleep 0.5
	done
	sed 's/^/    serve: /' "$TMP/serve.err" >&2
	fail "$1: bpfspec_up did not reach 1 with a timers count within 60 s"
}
timers() { value "bpfspec_latency_seconds_count{spec=\"libuv-phases\",probe=\"timers\",target=\"r\",thread_role=\"main\"}"; }
up_then "at start"
attached0=$(value "bpfspec_probes_attached{$sel}")
echo "measured: probes attached at start     $attached0"

promtool check metrics <"$m" >"$TMP/promtool.out" 2>&1 ||
	{ sed 's/^/    promtool: /' "$TMP/promtool.out" >&2; fail "promtool check metrics refused a scrape"; }
echo "measured: promtool check metrics        ok, $(grep -vc '^#' "$m") samples, $(grep -c '^# TYPE' "$m") families"

# A broken spec: refused, nothing restarts.
printf 'probes: [\n' >>"$spec"
t0=$(timers)
kill -HUP "$SERVE_PID"
for ((i = 0; i < 50; i++)); do
	grep -q "did not load" "$TMP/serve.err" && break
	sleep 0.1
done
grep -q "did not load" "$TMP/serve.err" ||
	{ sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "serve did not say the broken spec did not load"; }
echo "measured: broken spec, SIGHUP           $(grep -m1 -o 'the specs above did not load[^;]*' "$TMP/serve.err")"
sleep 5
scrape "$m"
t1=$(timers)
echo "measured: timers count across it       $t0 -> $t1, bpfspec_up $(value "bpfspec_up{$sel}"), restarts ${restarts:-$(value "bpfspec_restarts_total{$sel}")}"
[ -z "$(value "bpfspec_restarts_total{$sel}")" ] || fail "serve restarted its child on a spec that does not load"
[ "$(value "bpfspec_up{$sel}")" = 1 ] || fail "bpfspec_up fell on a refused reload"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b > a) }' || fail "the timers count stopped growing ($t0 -> $t1)"

# Mended, without the check probe: the child restarts on the new spec.
cp "$TOP/specs/libuv-phases.yaml" "$spec"
python3 - "$spec" <<'PY' || fail "could not remove probe check from the copy"
import sys, yaml
path = sys.argv[1]
doc = yaml.safe_load(open(path))
probes = doc["probes"]
doc["probes"] = [p for p in probes if p.get("name") != "check"]
assert len(doc["probes"]) == len(probes) - 1
yaml.safe_dump(doc, open(path, "w"), sort_keys=False)
PY
"$BPFSPEC" check "$spec" >/dev/null || fail "the mended spec does not pass bpfspec check"
t2=$(timers)
kill -HUP "$SERVE_PID"
for ((i = 0; i < 120; i++)); do
	sleep 0.5
	scrape "$m"
	[ "$(value "bpfspec_restarts_total{$sel}")" = 1 ] && [ "$(value "bpfspec_up{$sel}")" = 1 ] &&
		[ "$(value "bpfspec_probes_attached{$sel}")" != "$attached0" ] && break
done
attached1=$(value "bpfspec_probes_attached{$sel}")
t3=$(timers)
echo "measured: mended spec, SIGHUP           restarts $(value "bpfspec_restarts_total{$sel}"), bpfspec_up $(value "bpfspec_up{$sel}"), probes attached $attached0 -> $attached1 (truth 2 fewer)"
[ "$(value "bpfspec_restarts_total{$sel}")" = 1 ] || fail "no restart after SIGHUP on a mended spec"
[ "$(value "bpfspec_up{$sel}")" = 1 ] || fail "bpfspec_up is not 1 after the reload"
[ "$attached1" = "$((attached0 - 2))" ] || fail "probes attached $attached0 -> $attached1, not 2 fewer"
echo "measured: timers count across it       $t2 -> $t3"
awk -v a="$t2" -v b="$t3" 'BEGIN { exit !(b >= a) }' || fail "the timers count fell across the reload ($t2 -> $t3)"
grep -q "probe=\"check\"" "$m" || fail "the check probe's series went with the reload (totals must stay)"
stop_serve
