#!/usr/bin/env bash
# scripts/check-layers.sh on copies of gen/, each with one fault put in:
# it must fail on each, naming the file and line, and pass on gen/ as it
# is.  Prints "ok layers/CASE" or "FAIL layers/CASE" per case.
. "$(dirname "$0")/../lib.sh"

# case NAME FILE LINE_TO_ADD EXPECTED — a copy of the tree with LINE_TO_ADD
# after FILE's first line; the check must fail and say EXPECTED ("" for a
# pass on the tree as it is).
check_case() {
	local name=$1 file=$2 add=$3 want=$4 out rc=0
	rm -rf "$TMP/$name"
	mkdir -p "$TMP/$name/scripts"
	cp "$TOP/scripts/check-layers.sh" "$TMP/$name/scripts/"
	cp -r "$TOP/gen" "$TMP/$name/"
	[ -n "$file" ] && sed -i "1a $add" "$TMP/$name/$file"
	out=$(sh "$TMP/$name/scripts/check-layers.sh" 2>&1) || rc=$?
	if [ -z "$want" ]; then
		if [ "$rc" -eq 0 ]; then echo "ok layers/$name"; else echo "FAIL layers/$name ($out)"; fi
	elif [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -qF -- "$want"; then
		echo "ok layers/$name"
	else
		echo "FAIL layers/$name (status $rc, said: $out; expected: $want)"
	fi
}

check_case as-is "" "" ""
check_case upward gen/model/report.c '#include "run/runner.h"' \
	'gen/model/report.c:2: includes "run/runner.h": model may not use run'
check_case sideways gen/render/render_text.c '#include "program/resolve.h"' \
	'gen/render/render_text.c:2: includes "program/resolve.h": render may not use program'
check_case into-plugin gen/program/generator.c '#include "attribution/why.h"' \
	'gen/program/generator.c:2: includes "attribution/why.h": program reaches the plugin attribution'
check_case plugin-to-plugin gen/kinds/count.c '#include "attribution/why.h"' \
	'gen/kinds/count.c:2: includes "attribution/why.h": kinds reaches the plugin attribution'
check_case bare-name gen/util/buf.c '#include "safe.h"' \
	'gen/util/buf.c:2: includes "safe.h": write "layer/safe.h"'
check_case unknown-folder gen/util/buf.c '#include "gadgets/x.h"' \
	'gadgets is not in gen/LAYERS'
# util/diag.c includes util/safe.h; util/safe.c including util/diag.h
# makes a cycle within one layer, which the layer rule alone allows.
check_case cycle gen/util/safe.c '#include "util/diag.h"' 'include cycle between modules'
