#!/usr/bin/env bash
# Probe kinds against known truths.
#  1. USDT: tests/targets/usdt_prog.c (built here with <sys/sdt.h>) fires
#     bpfspec_test:tick(i, "tick-<i>") exactly 80 times and
#     bpfspec_test:done(80, -1) once, on a command held until the probes
#     are attached: the count is exactly 80; the events carry exactly
#     i = 1..50 with their labels (limit 50), 30 more counted as dropped,
#     and done's unsigned 80 and signed -1.
#  2. Bad USDT points fail before bpftrace starts (exit 4), naming the
#     probes the object has; the bundled node-usdt-http spec on this node
#     (no USDT probes) says so.
#  3. kprobe and kretprobe points (count and events) are refused on this
#     kernel (CONFIG_KPROBES off) before bpftrace starts; gen prints them.
#  4. software, profile and interval counts on tests/workloads/cpu_spin.c,
#     which uses exactly 2 s of CPU: software:cpu-clock:1000000 (one hit
#     per ms on CPU) ≈ 2000 ± 20% (1992-2002 on a quiet machine; 2335
#     seen while two other test suites ran: the per-CPU timer's samples
#     land on the spinning task more often when the CPUs are contended),
#     profile:hz:99 ≈ 198 ± 15%,
#     interval:ms:100 ≈ window / 100 ms ± 10%.
. "$(dirname "$0")/../lib.sh"
need_root

cc -O1 -g -Wall -Werror -o "$TMP/usdt_prog" "$TOP/tests/targets/usdt_prog.c"
cc -O1 -Wall -Werror -o "$TMP/cpu_spin" "$TOP/tests/workloads/cpu_spin.c"
fake=$TMP/fake-bpftrace
printf '#!/bin/sh\ntouch %s/bpftrace-started\nexit 1\n' "$TMP" >"$fake"
chmod +x "$fake"

# refused NAME SPEC PATTERN... — `bpfspec run SPEC` exits 4 before bpftrace
# starts, with every PATTERN (grep -F) in its error output.
refused() {
	local name=$1 spec=$2 rc=0 pat
	shift 2
	rm -f "$TMP/bpftrace-started"
	BPFSPEC_BPFTRACE=$fake "$BPFSPEC" run "$spec" -d 1 -- "$TMP/usdt_prog" 1 0 0 \
		>"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
	sed 's/^/    /' "$TMP/$name.err"
	[ "$rc" -eq 4 ] || fail "$name: exited $rc, expected 4"
	for pat in "$@"; do
		grep -qF -- "$pat" "$TMP/$name.err" || fail "$name: no '$pat' in the error"
	done
	[ ! -e "$TMP/bpftrace-started" ] || fail "$name: bpftrace was started"
	echo "ok: $name refused before bpftrace started"
}

# 1. USDT count and events.
cat >"$TMP/usdt.yaml" <<'YAML'
# USDT probes of usdt_prog: hits, and records with the arguments.
name: usdt-fixture
probes:
  - name: ticks
    kind: count
    probe: "usdt:main:bpfspec_test:tick"
  - name: tick
    kind: events
    probe: "usdt:main:bpfspec_test:tick"
    limit: 50
    args:
      - {name: label, value: arg1, type: string}
      - {name: i, value: arg0, type: int}
  - name: done
    kind: events
    probe: "usdt:main:bpfspec_test:done"
    args:
      - {name: n, value: arg0, type: uint}
      - {name: minus_one, value: arg1, type: int}
YAML
"$BPFSPEC" run "$TMP/usdt.yaml" -o json -- "$TMP/usdt_prog" 80 0 500 \
	>"$TMP/usdt.json" 2>"$TMP/usdt.err" || { status=$?; cat "$TMP/usdt.err"; fail "bpfspec run exited $status"; }
n=$(jqr "$TMP/usdt.json" '.probes[0].count')
echo "measured: usdt tick hits                $n (truth 80)"
[ "$n" -eq 80 ] || fail "counted $n ticks, expected exactly 80"
[ "$(jqr "$TMP/usdt.json" '.probes[1].count')" -eq 80 ] || fail "tick events count is not 80"
[ "$(jqr "$TMP/usdt.json" '.probes[1].events | length')" -eq 50 ] || fail "not 50 tick records"
[ "$(jqr "$TMP/usdt.json" '.probes[1].events_dropped')" -eq 30 ] || fail "not 30 dropped"
want=$(seq 50 | awk '{ printf "%s{\"label\":\"tick-%d\",\"i\":%d}", (NR > 1 ? "," : "["), $1, $1 } END { print "]" }')
got=$(jq -c '[.probes[1].events[].args]' "$TMP/usdt.json")
[ "$got" = "$want" ] || fail "tick records differ: $got"
[ "$(jq -c '[.probes[1].events[] | .thread] | unique' "$TMP/usdt.json")" = '["usdt_prog"]' ] ||
	fail "tick records do not name the thread"
[ "$(jq -c '.probes[2].events[0].args' "$TMP/usdt.json")" = '{"n":80,"minus_one":-1}' ] ||
	fail "done record: $(jq -c '.probes[2].events' "$TMP/usdt.json")"
[ "$(jq -r '.probes[1] | has("threshold_ns")' "$TMP/usdt.json")" = false ] ||
	fail "events on a probe point report a threshold"
/usr/bin/python3 "$TOP/scripts/validate-json-schema.py" "$TOP/docs/report.schema.json" "$TMP/usdt.json" ||
	fail "the report fails docs/report.schema.json"
echo "ok: usdt events carry exactly i = 1..50 and tick-1..tick-50; 30 dropped; done(80, -1)"
"$BPFSPEC" run "$TMP/usdt.yaml" -o text -- "$TMP/usdt_prog" 3 0 0 >"$TMP/usdt.txt" 2>"$TMP/usdt.err" ||
	{ status=$?; cat "$TMP/usdt.err"; fail "bpfspec run -o text exited $status"; }
grep -q 'label="tick-3" i=3$' "$TMP/usdt.txt" || { cat "$TMP/usdt.txt"; fail "no tick-3 line in text"; }
"$BPFSPEC" run "$TMP/usdt.yaml" -o prom -- "$TMP/usdt_prog" 3 0 0 >"$TMP/usdt.prom" 2>"$TMP/usdt.err" ||
	{ status=$?; cat "$TMP/usdt.err"; fail "bpfspec run -o prom exited $status"; }
grep -qx 'bpfspec_events{spec="usdt-fixture",probe="tick"} 3' "$TMP/usdt.prom" ||
	{ cat "$TMP/usdt.prom"; fail "no bpfspec_events 3 in prom"; }
grep -q 'tick-' "$TMP/usdt.prom" && fail "prom output carries event strings"
echo "ok: text and prom outputs"

# 2. Bad USDT points.
bad_usdt() { # bad_usdt NAME POINT ARG
	cat >"$TMP/$1.yaml" <<YAML
name: $1
probes:
  - name: p
    kind: events
    probe: "$2"
    args: [{name: a, value: $3}]
YAML
}
bad_usdt bad-name usdt:main:bpfspec_test:tock arg0
refused bad-name "$TMP/bad-name.yaml" "has no USDT probe bpfspec_test:tock; it has bpfspec_test:tick (2 arguments)" \
	"bpfspec_test:start (0 arguments)"
bad_usdt bad-provider usdt:main:bpfspec:tick arg0
refused bad-provider "$TMP/bad-provider.yaml" "has no USDT probe bpfspec:tick; it has bpfspec_test:tick"
bad_usdt bad-index usdt:main:bpfspec_test:tick arg2
refused bad-index "$TMP/bad-index.yaml" "argument 'a' reads arg2, but USDT probe bpfspec_test:tick in $TMP/usdt_prog has 2 arguments"
bad_usdt bad-object usdt:/bin/true:bpfspec_test:tick arg0
refused bad-object "$TMP/bad-object.yaml" "/bin/true has no USDT probes, so it has no bpfspec_test:tick"
rc=0
BPFSPEC_BPFTRACE=$fake "$BPFSPEC" run node-usdt-http -d 1 -- node -e 0 >/dev/null 2>"$TMP/node.err" || rc=$?
sed 's/^/    /' "$TMP/node.err"
[ "$rc" -eq 4 ] || fail "node-usdt-http on this node exited $rc, expected 4"
grep -qF "has no USDT probes, so it has no node:http__server__request" "$TMP/node.err" ||
	fail "node-usdt-http: no 'has no USDT probes' message"
grep -qF "run the bundled http-server spec instead" "$TMP/node.err" ||
	fail "node-usdt-http: the message does not point at http-server"
[ ! -e "$TMP/bpftrace-started" ] || fail "node-usdt-http: bpftrace was started"
echo "ok: node-usdt-http refused: this node has no USDT probes"

# 3. kprobes.
for point in kprobe:vfs_read kretprobe:vfs_read; do
	name=${point%%:*}
	cat >"$TMP/$name.yaml" <<YAML
name: $name-count
probes:
  - name: c
    kind: count
    probe: "$point"
  - name: e
    kind: events
    probe: "$point"
    args: [{name: v, value: $([ "$name" = kprobe ] && echo arg2 || echo retval), type: int}]
YAML
	refused "$name" "$TMP/$name.yaml" "probe 'c': kprobes are not available on this kernel (CONFIG_KPROBES is off)" \
		"probe 'e': kprobes are not available on this kernel (CONFIG_KPROBES is off)"
	"$BPFSPEC" gen "$TMP/$name.yaml" --binary "$TMP/usdt_prog" >"$TMP/$name.bt" ||
		fail "gen of a $name spec failed"
	[ "$(grep -c "^$point\$" "$TMP/$name.bt")" -eq 2 ] || fail "gen does not print the $name points"
done

# 4. software, profile, interval on 2 s of CPU.
cat >"$TMP/clock.yaml" <<'YAML'
name: clock
probes:
  - name: cpu
    kind: count
    probe: "software:cpu-clock:1000000"
    per_thread: false
  - name: samples
    kind: count
    probe: "profile:hz:99"
    per_thread: false
  - name: ticks
    kind: count
    probe: "interval:ms:100"
YAML
"$BPFSPEC" run "$TMP/clock.yaml" -o json -- "$TMP/cpu_spin" 2000 >"$TMP/clock.json" 2>"$TMP/clock.err" ||
	{ status=$?; cat "$TMP/clock.err"; fail "bpfspec run exited $status"; }
within "software:cpu-clock:1000000" "$(jqr "$TMP/clock.json" '.probes[0].count')" 2000 0.20
within "profile:hz:99" "$(jqr "$TMP/clock.json" '.probes[1].count')" 198 0.15
within "interval:ms:100" "$(jqr "$TMP/clock.json" '.probes[2].count')" \
	"$(jqr "$TMP/clock.json" '.duration_ns / 100000000')" 0.10
[ "$(jqr "$TMP/clock.json" '.probes[2].groups | length')" -eq 1 ] || fail "interval ticks are split by thread"
echo "ok"
