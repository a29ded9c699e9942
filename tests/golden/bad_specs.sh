#!/usr/bin/env bash
# Golden diagnostics: `bpfspec check tests/golden/bad/NAME.yaml` (run from
# the top of the tree) must exit 3 and print exactly tests/golden/bad/NAME.err
# on stderr; each tests/golden/good/NAME.yaml must load: exit 0, empty
# stderr.  Prints "ok bad/NAME" or "FAIL bad/NAME" (and good/NAME) per
# file, with a diff on mismatch.  UPDATE_GOLDEN=1 rewrites the .err files
# from the binary: read every changed one before committing it.
. "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1

for spec in tests/golden/bad/*.yaml; do
	name=$(basename "$spec" .yaml)
	expected=tests/golden/bad/$name.err
	rc=0
	"$BPFSPEC" check "$spec" >/dev/null 2>"$TMP/$name.err" || rc=$?
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$TMP/$name.err" "$expected"
	fi
	if [ ! -f "$expected" ]; then
		echo "FAIL bad/$name (no $expected)"
		continue
	fi
	if ! diff -u "$expected" "$TMP/$name.err" >"$TMP/$name.diff"; then
		echo "FAIL bad/$name"
		cat "$TMP/$name.diff"
		continue
	fi
	if [ "$rc" -ne 3 ]; then
		echo "FAIL bad/$name (exit status $rc, expected 3)"
		continue
	fi
	echo "ok bad/$name"
done

for spec in tests/golden/good/*.yaml; do
	name=$(basename "$spec" .yaml)
	rc=0
	"$BPFSPEC" check "$spec" >/dev/null 2>"$TMP/$name.err" || rc=$?
	# Expected stderr is empty: the diff shows whatever was printed.
	if ! diff -u /dev/null "$TMP/$name.err" >"$TMP/$name.diff" || [ "$rc" -ne 0 ]; then
		echo "FAIL good/$name (exit status $rc, expected 0)"
		cat "$TMP/$name.diff"
		continue
	fi
	echo "ok good/$name"
done
