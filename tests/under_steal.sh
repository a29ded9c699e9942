#!/usr/bin/env bash
# under_steal.sh PERCENT [TEST…] — runs integration tests while
# tests/steal/cpu_thief takes PERCENT% of every CPU in bursts (the
# longest STEAL_BURST_MS, default 80), the way
# the hypervisor of a busy CI machine does (20-30% there at times).  A
# timing test must judge bpfspec against what the workload really did,
# so it must pass here too.  TEST names tests/integration/test_NAME.sh
# (with or without the prefix and .sh); none runs them all.  As root.
# The tests' "host steal" lines read about 0% here: the kernel counts the
# thief's time as user time, not steal.
#   bash tests/under_steal.sh 25 libuv_phases oneliners
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export TOP=$(dirname "$here")
export BUILD=${BUILD:-$TOP/build}
export BPFSPEC=${BPFSPEC:-$BUILD/bpfspec}
[ $# -ge 1 ] || { echo "usage: under_steal.sh PERCENT [TEST...]" >&2; exit 2; }
percent=$1
shift
mkdir -p "$BUILD/tests"
cc -O1 -Wall -Wextra -Werror -pthread -o "$BUILD/tests/cpu_thief" "$here/steal/cpu_thief.c"
"$BUILD/tests/cpu_thief" "$percent" "${STEAL_BURST_MS:-80}" &
thief=$!
trap 'kill "$thief" 2>/dev/null; wait "$thief" 2>/dev/null || true' EXIT
sleep 0.2
kill -0 "$thief" 2>/dev/null || { echo "under_steal.sh: cpu_thief did not start" >&2; exit 1; }
tests=()
for t in "$@"; do
	t=${t#test_}
	t=$here/integration/test_${t%.sh}.sh
	[ -f "$t" ] || { echo "under_steal.sh: no test $t" >&2; exit 2; }
	tests+=("$t")
done
[ ${#tests[@]} -gt 0 ] || tests=("$here"/integration/test_*.sh)
passed=0 failed=0 names=()
for t in "${tests[@]}"; do
	log=$BUILD/$(basename "$t" .sh).steal$percent.log
	if bash "$t" >"$log" 2>&1; then
		passed=$((passed + 1))
		grep '^measured:' "$log" | sed 's/^/    /'
		echo "ok   $(basename "$t" .sh) (under ${percent}% stolen)"
	else
		failed=$((failed + 1))
		names+=("$(basename "$t" .sh)")
		sed 's/^/    /' "$log"
		echo "FAIL $(basename "$t" .sh) (under ${percent}% stolen)"
	fi
done
for n in "${names[@]+"${names[@]}"}"; do echo "failed: $n"; done
echo "$passed passed, $failed failed (under ${percent}% stolen)"
[ "$failed" -eq 0 ]
