# lib.sh — shared setup for the shell tests: strict mode, C locale, a
# private temporary directory removed on exit, and small assertions.
# Sourced by tests/integration/*.sh and tests/golden/*.sh.
set -eu
export LC_ALL=C
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BPFSPEC=${BPFSPEC:-$TOP/build/bpfspec}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bpfspec-test.XXXXXX")
_cleanup_pids=()
_cleanup() {
	for p in "${_cleanup_pids[@]+"${_cleanup_pids[@]}"}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap _cleanup EXIT

# cleanup_pid PID — kill PID when the test ends.
cleanup_pid() { _cleanup_pids+=("$1"); }

fail() { echo "FAIL: $*" >&2; exit 1; }

# need_root — integration tests run the real bpftrace: they cannot skip.
need_root() {
	[ "$(id -u)" -eq 0 ] || fail "integration tests need root (they run bpftrace); a skip would hide a failure"
	command -v bpftrace >/dev/null || fail "bpftrace is not installed: run scripts/setup.sh"
}

# within NAME VALUE TRUTH TOLERANCE — VALUE within ±TOLERANCE (fraction) of TRUTH.
within() {
	awk -v n="$1" -v v="$2" -v t="$3" -v tol="$4" 'BEGIN {
		lo = t * (1 - tol); hi = t * (1 + tol)
		ok = (v >= lo && v <= hi)
		printf "measured: %-28s %14.4f  truth %12.4f  ±%d%%  %s\n", n, v, t, tol * 100, ok ? "ok" : "OUT OF RANGE"
		exit ok ? 0 : 1 }' || fail "$1 = $2 is not within ±$4 of $3"
}

# up_to N FUNC — runs FUNC in a subshell until it passes, at most N times.
# For timing truths (a busy-wait's max, its p99): a burst of work or host
# steal on this shared 2-core VM can stretch one sample in a window; a
# wrong tool is wrong in every window.
up_to() {
	local n=$1 i
	shift
	for ((i = 1; i <= n; i++)); do
		("$@") && return 0
		[ "$i" -lt "$n" ] && echo "measured: a figure was out of tolerance; measuring window $((i + 1)) of $n"
	done
	fail "out of tolerance in $n windows in a row"
}

# jqr FILE FILTER — jq -r that fails the test on a jq error or null.
jqr() {
	local v
	v=$(jq -r "$2" "$1") || fail "jq '$2' failed on $1"
	[ -n "$v" ] && [ "$v" != null ] || fail "jq '$2' found nothing in $1"
	printf '%s\n' "$v"
}
