#!/usr/bin/env bash
# The bundled v8-gc spec counts V8's collections exactly.  node runs with
# --expose-gc and, after 200 ms, calls gc() 20 times (each a full,
# mark-compact collection) and gc({type: "minor"}) 7 times (each a
# scavenge); the command is held until the probes are attached, and this
# short script allocates too little for V8 to collect on its own.  Truth:
# gc (Heap::CollectGarbage) and collection (PerformGarbageCollection) 27,
# mark_compact 20, scavenge 7, minor_mark_compact 0 (off in node 20).
# The spec names V8's functions by their mangled names; demangled names
# (v8::internal::Heap::CollectGarbage) await demangled-name matching.
. "$(dirname "$0")/../lib.sh"
need_root

"$BPFSPEC" run v8-gc -o json -d 0 -- node --expose-gc -e \
	'setTimeout(() => { for (let i = 0; i < 20; i++) gc(); for (let i = 0; i < 7; i++) gc({type: "minor"}); }, 200)' \
	>"$TMP/gc.json" 2>"$TMP/gc.err" || { status=$?; cat "$TMP/gc.err"; fail "bpfspec run v8-gc exited $status"; }
for pair in gc:27 collection:27 mark_compact:20 scavenge:7 minor_mark_compact:0; do
	name=${pair%%:*} truth=${pair#*:}
	[ "$(jqr "$TMP/gc.json" ".probes[] | select(.name == \"$name\") | .attached")" = true ] ||
		fail "$name is not attached: $(jq -r ".probes[] | select(.name == \"$name\") | .reason" "$TMP/gc.json")"
	n=$(jqr "$TMP/gc.json" ".probes[] | select(.name == \"$name\") | .count")
	echo "measured: v8-gc $name collections $n (truth $truth)"
	[ "$n" -eq "$truth" ] || fail "$name counted $n, expected exactly $truth"
done
# A collection is part of its GC: its pauses cannot be longer in total.
gc_sum=$(jqr "$TMP/gc.json" '.probes[] | select(.name == "gc") | .sum_ns')
mc_sum=$(jqr "$TMP/gc.json" '.probes[] | select(.name == "mark_compact") | .sum_ns')
[ "$mc_sum" -gt 0 ] && [ "$mc_sum" -le "$gc_sum" ] || fail "mark_compact time $mc_sum is not within gc time $gc_sum"
echo "ok"
