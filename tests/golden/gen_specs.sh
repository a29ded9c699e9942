#!/usr/bin/env bash
# Golden programs: `bpfspec gen SPEC --binary BIN` must print exactly
# tests/golden/gen/NAME.bt (addresses, which depend on the binary's
# build, are replaced by 0xADDR before comparing), and bpftrace must
# parse what was printed (`bpftrace -d`, or --dry-run from 0.22: nothing is
# loaded).  The goldens are written for bpftrace 0.17; that every version's
# dialect compiles without a warning is tests/integration/test_programs_compile.sh.
# Each case is a line of tests/golden/gen/cases: NAME SPEC BINARY [OPTIONS...]
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
normalize() { sed -E 's/0x[0-9a-f]+/0xADDR/g'; }

dry=-d
if command -v bpftrace >/dev/null &&
	bpftrace --version 2>/dev/null | grep -Eq ' v(0\.(2[2-9]|[3-9][0-9])|[1-9])'; then
	dry=--dry-run
fi
while read -r name spec binary opts; do
	case $name in ''|'#'*) continue ;; esac
	expected=tests/golden/gen/$name.bt
	# shellcheck disable=SC2086
	if ! "$BPFSPEC" gen "$spec" --binary "$binary" --bpftrace-version 0.17 $opts >"$TMP/$name.bt" 2>"$TMP/$name.err"; then
		echo "FAIL gen/$name"
		sed 's/^/    /' "$TMP/$name.err"
		continue
	fi
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		normalize <"$TMP/$name.bt" >"$expected"
	fi
	if ! normalize <"$TMP/$name.bt" | diff -u "$expected" - >"$TMP/$name.diff"; then
		echo "FAIL gen/$name"
		sed 's/^/    /' "$TMP/$name.diff"
		continue
	fi
	if command -v bpftrace >/dev/null && [ "$(id -u)" -eq 0 ]; then
		if ! bpftrace "$dry" "$TMP/$name.bt" >"$TMP/$name.ast" 2>&1 ||
			grep -v 'RLIMIT_MEMLOCK' "$TMP/$name.ast" | grep -q 'ERROR'; then
			echo "FAIL gen/$name (bpftrace $dry rejects it)"
			grep -v RLIMIT "$TMP/$name.ast" | head -20 | sed 's/^/    /'
			continue
		fi
	fi
	echo "ok gen/$name"
done <tests/golden/gen/cases
