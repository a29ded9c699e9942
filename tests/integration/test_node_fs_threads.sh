#!/usr/bin/env bash
# Node.js runs fs calls on libuv's thread pool: tests/workloads/fs_loop.js
# reads one file with fs.readFile, one read after the other, for 3 s, and
# counts the completed reads.  Traced with specs/file-io.yaml changed to
# record every openat (threshold 0ms, limit 10000).  Truth: the openat
# records whose path is that file number exactly the completed readFile
# calls, none is from the main thread (tid == pid), all succeeded; and
# the syscalls probe's per-thread figures give openat and read at least
# one call per readFile on threads other than the main one.
. "$(dirname "$0")/../lib.sh"
need_root

sed -e 's/^\(    threshold:\).*/\1 0ms/' -e 's/^\(    limit:\).*/\1 10000/' \
	"$TOP/specs/file-io.yaml" >"$TMP/file-io.yaml"
grep -q '^    threshold: 0ms$' "$TMP/file-io.yaml" && grep -q '^    limit: 10000$' "$TMP/file-io.yaml" ||
	fail "could not set threshold and limit in a copy of specs/file-io.yaml"
head -c 4096 /dev/urandom >"$TMP/data.bin"

node "$TOP/tests/workloads/fs_loop.js" "$TMP/data.bin" --seconds 3 --stats "$TMP/stats" &
target=$!
cleanup_pid "$target"
# The loop starts on SIGUSR2: wait until node handles it (SigCgt bit 12).
for _ in $(seq 100); do
	cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$target/status" 2>/dev/null || true)
	[ -n "$cgt" ] && (( (16#$cgt >> 11) & 1 )) && break
	sleep 0.1
done
(( (16#${cgt:-0} >> 11) & 1 )) || fail "node did not install its SIGUSR2 handler within 10 s"

"$BPFSPEC" run "$TMP/file-io.yaml" -p "$target" -d 0 -o json -v >"$TMP/report.json" 2>"$TMP/stderr" &
bpf=$!
cleanup_pid "$bpf"
await_window "$bpf" "$TMP/stderr"
kill -USR2 "$target"

set +e
wait "$bpf"
rc=$?
wait "$target"
target_rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "bpfspec exited $rc"; }
[ "$target_rc" -eq 0 ] || fail "fs_loop.js exited $target_rc"
calls=$(sed -n 's/^readfile_calls=//p' "$TMP/stats")
[ -n "$calls" ] && [ "$calls" -ge 100 ] || fail "fs_loop.js completed only '${calls}' readFile calls"

r=$TMP/report.json
ev() { jqr "$r" "[.probes[] | select(.name == \"slow_opens\") | .events[] | select(.path == \"$TMP/data.bin\") | $1]"; }
[ "$(jqr "$r" '.probes[] | select(.name == "slow_opens") | .events_dropped')" -eq 0 ] ||
	fail "events were dropped (limit 10000)"
n_ev=$(ev . | jq length)
n_main=$(ev "select(.tid == $target)" | jq length)
n_failed=$(ev 'select(.ret < 0)' | jq length)
workers=$(ev .tid | jq -r 'unique | map(tostring) | join(" ")')
echo "measured: readFile calls completed      $calls"
echo "measured: openat records of the file    $n_ev (truth $calls), from the main thread $n_main (truth 0), failed $n_failed"
echo "measured: thread ids opening the file   $workers (pid $target)"
[ "$n_ev" -eq "$calls" ] || fail "$n_ev openat records of $TMP/data.bin, expected exactly $calls"
[ "$n_main" -eq 0 ] || fail "$n_main openat records of the file from the main thread"
[ "$n_failed" -eq 0 ] || fail "$n_failed openat calls of the file failed"
[ "$(ev '.thread' | jq -r 'unique | join(",")')" != "" ] || fail "records without a thread name"

# The syscalls probe: per syscall, per thread.
sc_threads() { jqr "$r" "[.probes[] | select(.name == \"file\") | .syscalls[] | select(.syscall == \"$1\") | .threads[] | $2]"; }
read_workers=$(sc_threads read 'select(.main_thread == false and .tid != '"$target"') | .count' | jq add)
read_main=$(sc_threads read 'select(.main_thread) | .count' | jq 'add // 0')
open_workers=$(sc_threads openat 'select(.main_thread == false and .tid != '"$target"') | .count' | jq add)
echo "measured: read calls on pool threads    $read_workers (at least $calls), on the main thread $read_main"
echo "measured: openat calls on pool threads  $open_workers (at least $calls)"
[ "$read_workers" -ge "$calls" ] || fail "$read_workers read calls on non-main threads, expected at least $calls"
[ "$open_workers" -ge "$calls" ] || fail "$open_workers openat calls on non-main threads, expected at least $calls"
# main_thread agrees with tid == pid everywhere.
[ "$(jqr "$r" '[.probes[] | select(.name == "file") | .groups[], (.syscalls[].threads[]) | select(.main_thread != (.tid == '"$target"'))] | length')" -eq 0 ] ||
	fail "main_thread disagrees with tid == pid"
