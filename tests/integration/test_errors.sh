#!/usr/bin/env bash
# Bad targets and a missing or slow bpftrace: a clear message naming the pid,
# path or symbol, the documented exit status, and no bpftrace started.
. "$(dirname "$0")/../lib.sh"
need_root

expect() { # expect STATUS PATTERN CMD... — run CMD, check status and stderr
	local want=$1 pattern=$2 rc
	shift 2
	set +e
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	set -e
	[ "$rc" -eq "$want" ] || { cat "$TMP/err"; fail "$* exited $rc, expected $want"; }
	grep -q -- "$pattern" "$TMP/err" || { cat "$TMP/err"; fail "$*: stderr lacks '$pattern'"; }
	echo "measured: exit $rc: $(head -1 "$TMP/err")"
}

# A pid that does not exist (a child that has been reaped).
sh -c 'exit 0' &
gone=$!
wait "$gone"
expect 4 "no process with pid $gone" "$BPFSPEC" run libuv-phases -p "$gone" -d 1s

# A process without libuv: one error naming the pid and its program,
# not the same missing-symbol error once per phase.
expect 4 "pid $$ runs /usr/bin/bash, which has no libuv" "$BPFSPEC" run libuv-phases -p $$ -d 1s
[ "$(grep -c 'error:' "$TMP/err")" -eq 1 ] || { cat "$TMP/err"; fail "more than one error for a process without libuv"; }

# A spec that is neither a file nor bundled: the hint names the bundled ones.
expect 3 "one of the bundled specs: .*libuv-phases" "$BPFSPEC" run libuv-phase -p $$ -d 1s

# A required function that the binary lacks: names symbol and file.
cat >"$TMP/missing.yaml" <<'YAML'
probes:
  - name: nothere
    kind: latency
    function: no_such_function_here
YAML
expect 4 "function 'no_such_function_here' not in /usr/bin/node" \
	"$BPFSPEC" run "$TMP/missing.yaml" -d 1s -- node -e 0

# A span point on a function the binary lacks (bpftrace 0.17 would drop
# the uprobe without a word): names the function, the point and the file.
cat >"$TMP/span.yaml" <<'YAML'
probes:
  - name: job
    kind: span
    points:
      - {probe: "uprobe:main:no_such_submit", key: arg0}
      - {stage: done, probe: "uprobe:main:uv__fs_done", key: arg0}
YAML
node_exe=$(readlink -f "$(command -v node)")
expect 4 "$node_exe: no function no_such_submit for point 1 of probe 'job'" \
	"$BPFSPEC" gen "$TMP/span.yaml" --binary "$node_exe"

# bpftrace missing: says what to install.
node "$TOP/scripts/workloads/phases.js" --seconds 30 &
app=$!
cleanup_pid "$app"
sleep 1	# until the forked shell has become node
BPFSPEC_BPFTRACE=/nonexistent/bpftrace expect 5 "apt-get install bpftrace" \
	"$BPFSPEC" run libuv-phases -p "$app" -d 1s

# A bpftrace older than 0.17 (Ubuntu 22.04 ships 0.14): refused before it
# is given a program, with what to install.
cat >"$TMP/old-bpftrace" <<'EOF'
#!/bin/sh
[ "$1" = --version ] && { echo "bpftrace v0.14.0"; exit 0; }
touch "${0%/*}/old-bpftrace-ran"
exit 1
EOF
chmod +x "$TMP/old-bpftrace"
BPFSPEC_BPFTRACE=$TMP/old-bpftrace expect 5 "older than 0.17" \
	"$BPFSPEC" run libuv-phases -p "$app" -d 1s
grep -q "install bpftrace 0.17 or later" "$TMP/err" || fail "no hint on what to install"
[ ! -e "$TMP/old-bpftrace-ran" ] || fail "bpftrace 0.14 was given a program"

# bpfspec asks bpftrace its version only to write the program: a refused
# spec or target starts no bpftrace at all, not even --version; gen waits
# for a slow answer and writes for the version said.
cat >"$TMP/slow-bpftrace" <<'SH'
#!/bin/sh
# Marks that it ran, then waits with its own path in its command line,
# so pgrep -f finds it.
[ "$1" = --version ] || exit 1
: >>"${0%/*}/slow-bpftrace-ran"
exec python3 -c 'import sys, time; time.sleep(float(sys.argv[1])); print("bpftrace v0.27.1")' \
	"${SLOW_BPFTRACE_S:-30}" "$0"
SH
chmod +x "$TMP/slow-bpftrace"
BPFSPEC_BPFTRACE=$TMP/slow-bpftrace expect 3 "neither a spec file nor a bundled spec" \
	"$BPFSPEC" run libuv-phase -p $$ -d 1s
sleep 0.5
[ ! -e "$TMP/slow-bpftrace-ran" ] || fail "a rejected spec started bpftrace --version"
sh -c 'exit 0' &
gone=$!
wait "$gone"
BPFSPEC_BPFTRACE=$TMP/slow-bpftrace expect 4 "no process with pid $gone" \
	"$BPFSPEC" run libuv-phases -p "$gone" -d 1s
sleep 0.5
[ ! -e "$TMP/slow-bpftrace-ran" ] || fail "a refused target started bpftrace --version"
SLOW_BPFTRACE_S=1 BPFSPEC_BPFTRACE=$TMP/slow-bpftrace "$BPFSPEC" gen libuv-phases --binary "$(command -v node)" \
	>"$TMP/slow.bt" 2>"$TMP/slow.err" || { cat "$TMP/slow.err"; fail "gen with a slow bpftrace failed"; }
grep -q '\$deleted = delete(' "$TMP/slow.bt" || fail "gen did not write for bpftrace 0.27, as the slow one said"
echo "measured: a refused spec or target asked no version; gen waited for a 1 s answer and wrote for 0.27"

# A command that is not in PATH.
expect 4 "not found" "$BPFSPEC" run libuv-phases -d 1s -- no-such-command-xyz
# A usage error.
expect 2 "give exactly one of" "$BPFSPEC" run libuv-phases -d 1s
