#!/bin/sh
# check-layers.sh — the layering of gen/ (gen/LAYERS says the rules):
# fails on a project #include that is not "dir/name.h", on one that
# points into a layer its folder may not use or into a plugin from a
# layer or another plugin, and on an include cycle between modules.
# Prints every fault as FILE:LINE: what; exits 1 when there is one.
# Runs first in `make check` (tests/run.sh layers).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Every project include as "FILE LINE HEADER".
for f in gen/*/*.c gen/*/*.h; do
	awk '/^#include "/ { h = $2; gsub(/"/, "", h); print FILENAME, FNR, h }' "$f"
done >"$tmp/includes"

awk -v generated="embedded.h" '
FNR == NR {
	if ($0 ~ /^#/ || NF == 0) next
	if ($1 == "plugin") { plugin[$2] = 1; known[$2] = 1; next }
	known[$1] = 1
	# the words after the description are layers: the last fields that are
	# names of earlier layers
	for (i = NF; i > 1 && ($i in known); i--) may[$1 " " $i] = 1
	next
}
{
	file = $1; line = $2; h = $3
	n = split(file, p, "/"); from = p[2]
	if (h == generated) next
	if (index(h, "/") == 0) { print file ":" line ": includes \"" h "\": write \"layer/" h "\""; bad = 1; next }
	split(h, q, "/"); to = q[1]
	if (!(from in known)) { print file ":" line ": folder gen/" from " is not in gen/LAYERS"; bad = 1; next }
	if (!(to in known)) { print file ":" line ": includes \"" h "\": gen/" to " is not in gen/LAYERS"; bad = 1; next }
	if (to == from) next
	if (to in plugin) {
		print file ":" line ": includes \"" h "\": " from " reaches the plugin " to \
			" by name (use its row: model/kind.h, model/feature.h)"
		bad = 1; next
	}
	if (from in plugin) next
	if (!((from " " to) in may)) {
		print file ":" line ": includes \"" h "\": " from " may not use " to " (gen/LAYERS)"
		bad = 1
	}
}
END { exit bad }' gen/LAYERS "$tmp/includes" || fail=1
fail=${fail:-0}

# Cycles between modules: a module is name.c, name.h and name_internal.h.
awk '
function module(path) { sub(/^gen\//, "", path); sub(/\.[ch]$/, "", path); sub(/_internal$/, "", path); return path }
{ print module($1), module("gen/" $3) }' "$tmp/includes" >"$tmp/edges"
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/tsort"; then
	echo "include cycle between modules (each includes the next, the last the first):"
	sed -n 's/^tsort: //p' "$tmp/tsort" | grep -v 'input contains a loop' | sed 's/^/  /'
	fail=1
fi
[ "$fail" = 0 ] && echo "layers: $(wc -l <"$tmp/includes") includes of $(ls gen/*/*.[ch] | wc -l) files follow gen/LAYERS, no cycle"
exit "$fail"
