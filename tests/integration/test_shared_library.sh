#!/usr/bin/env bash
# A function in a shared object mapped into the target (found through
# /proc/PID/maps by the spec's objects glob): a C program calls
# work_sleep(10 ms) in libwork.so exactly 25 times.  Truth: count 25
# exactly, p50 within ±15% of 10 ms, min at least 10 ms, total from 250
# to 325 ms (a sleep only ever ends late), and a second copy of the same
# program running at the same time is not counted.
. "$(dirname "$0")/../lib.sh"
need_root

cc -O1 -g -shared -fPIC -o "$TMP/libwork.so" "$TOP/tests/workloads/libwork.c"
cc -O1 -g -o "$TMP/sleeper" "$TOP/tests/workloads/sleeper.c" -L"$TMP" -lwork -Wl,-rpath,"$TMP"
cat >"$TMP/work.yaml" <<'YAML'
# work_sleep latency, from the shared library
name: work-sleep
objects: ["libwork.so*"]
probes:
  - name: sleep
    kind: latency
    function: work_sleep
    unit: ms
YAML

"$TMP/sleeper" 25 10 1500 &
target=$!
cleanup_pid "$target"
"$TMP/sleeper" 40 10 1500 &	# same binary and library, another process
other=$!
cleanup_pid "$other"
sleep 0.3
set +e
"$BPFSPEC" run "$TMP/work.yaml" -p "$target" -d 0 -o json >"$TMP/report.json" 2>"$TMP/stderr"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "bpfspec exited $rc"; }
r=$TMP/report.json
[ "$(jqr "$r" '.probes[0].object')" = "$TMP/libwork.so" ] || fail "object is not libwork.so"
count=$(jqr "$r" '.probes[0].count')
echo "measured: calls counted                 $count (truth 25; the other process made 40)"
[ "$count" -eq 25 ] || fail "counted $count calls, expected exactly 25"
within "work_sleep p50 (ms)" "$(jqr "$r" '.probes[0].p50_ns' | awk '{print $1/1e6}')" 10 0.15
# A sleep never ends early (min >= 10 ms) but may wake late when this
# 2-core machine is busy: the max is one sample, the total is robust.
min=$(jqr "$r" '.probes[0].min_ns' | awk '{print $1/1e6}')
echo "measured: work_sleep min (ms)           $min (at least 10)"
awk -v v="$min" 'BEGIN { exit !(v >= 10) }' || fail "a 10 ms sleep measured $min ms"
# A sleep never ends early and may end late (timer slack, a busy host):
# the total is at least 25 x 10 ms and at most 30% more.
total=$(jqr "$r" '.probes[0].sum_ns' | awk '{print $1/1e6}')
echo "measured: work_sleep total (ms)         $total (truth 250 to 325)"
awk -v v="$total" 'BEGIN { exit !(v >= 250 && v <= 325) }' || fail "25 sleeps of 10 ms took $total ms in all"

# With -- CMD the library is not mapped yet when symbols are resolved:
# the error says so and what to do.
set +e
"$BPFSPEC" run "$TMP/work.yaml" -d 1s -- "$TMP/sleeper" 1 1 0 >/dev/null 2>"$TMP/stderr"
rc=$?
set -e
[ "$rc" -eq 4 ] || { cat "$TMP/stderr"; fail "-- CMD with a library: exit $rc, expected 4"; }
grep -q "use -p PID" "$TMP/stderr" || { cat "$TMP/stderr"; fail "the error does not say to use -p"; }
