#!/usr/bin/env bash
# specs/net-connect.yaml names every destination a process connects to:
# tests/workloads/connect_refused.c makes two blocking connects to closed
# ports, one to 127.0.0.1 and one to ::1 (each port found free by binding
# to port 0, then closed), both refused.  Run as -- CMD, so bpfspec holds
# it until every probe is attached.  Truth: exactly two connect records,
# "127.0.0.1:PORT4" and "[::1]:PORT6", each with ret -111 and error
# ECONNREFUSED; the syscalls probe counts connect 2 (2 ECONNREFUSED) and
# socket 4 (no error), all on the command's one thread.
. "$(dirname "$0")/../lib.sh"
need_root

cc -O1 -g -Wall -Werror -o "$TMP/connect_refused" "$TOP/tests/workloads/connect_refused.c"
set +e
"$BPFSPEC" run net-connect -d 0 -o json -- "$TMP/connect_refused" "$TMP/ports" \
	>"$TMP/report.json" 2>"$TMP/stderr"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "bpfspec exited $rc"; }
p4=$(sed -n 's/^port4 //p' "$TMP/ports")
p6=$(sed -n 's/^port6 //p' "$TMP/ports")
[ -n "$p4" ] && [ -n "$p6" ] || fail "the workload wrote no ports"
cat "$TMP/stderr" >&2	# the workload says here if a connect was not refused

r=$TMP/report.json
pid=$(jqr "$r" .target.pid)
[ "$(jqr "$r" .partial)" = false ] || fail "a command that ends by itself is not a partial run"
events() { jqr "$r" '[.probes[] | select(.name == "connects") | .events[]]'; }
addrs=$(events | jq -r 'map(.address) | join(" ")')
echo "measured: connect records               $addrs (truth 127.0.0.1:$p4 [::1]:$p6)"
[ "$(events | jq length)" -eq 2 ] || fail "$(events | jq length) connect records, expected 2: $addrs"
for a in "127.0.0.1:$p4" "[::1]:$p6"; do
	e=$(events | jq -c --arg a "$a" '.[] | select(.address == $a)')
	[ -n "$e" ] || fail "no connect record for $a (records: $addrs)"
	err=$(jq -r .error <<<"$e")
	ret=$(jq -r .ret <<<"$e")
	echo "measured: connect $a  ret $ret  error $err (truth -111 ECONNREFUSED)"
	[ "$err" = ECONNREFUSED ] && [ "$ret" -eq -111 ] || fail "connect $a: ret $ret error $err, expected -111 ECONNREFUSED"
	[ "$(jq -r .syscall <<<"$e")" = connect ] || fail "record for $a is not a connect"
	[ "$(jq -r .tid <<<"$e")" -eq "$pid" ] || fail "record for $a is from tid $(jq -r .tid <<<"$e"), not $pid"
done
[ "$(jqr "$r" '.probes[] | select(.name == "connects") | .events_dropped')" -eq 0 ] || fail "records dropped"

sc() { jqr "$r" ".probes[] | select(.name == \"net\") | .syscalls[] | select(.syscall == \"$1\") | $2"; }
echo "measured: connect calls                 $(sc connect .count) (truth 2), ECONNREFUSED $(sc connect '.errors.ECONNREFUSED // 0') (truth 2)"
echo "measured: socket calls                  $(sc socket .count) (truth 4), errors $(sc socket .error_count) (truth 0)"
[ "$(sc connect .count)" -eq 2 ] || fail "connect count $(sc connect .count), expected 2"
[ "$(sc connect '.errors.ECONNREFUSED // 0')" -eq 2 ] || fail "connect ECONNREFUSED count is not 2"
[ "$(sc connect .error_count)" -eq 2 ] || fail "connect error_count is not 2"
[ "$(sc socket .count)" -eq 4 ] || fail "socket count $(sc socket .count), expected 4"
[ "$(sc socket .error_count)" -eq 0 ] || fail "socket calls failed"
tids=$(jqr "$r" '[.probes[] | select(.name == "net") | .groups[].tid, .syscalls[].threads[].tid] | unique | map(tostring) | join(" ")')
[ "$tids" = "$pid" ] || fail "thread ids $tids, expected only $pid"
