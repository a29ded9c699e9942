#!/usr/bin/env bash
# bpfspec asks each bpftrace executable its version once (gen/run/btversion.c):
# with the real bpftrace, the first run asks, the next ones read the
# answer from $XDG_CACHE_HOME/bpfspec/bpftrace-versions and write the same
# program; a bpftrace replaced or touched is asked again; a wrapper script
# is asked every time; a cache that is not the user's alone is not read.
# The time saved is logged ("measured:"), not asserted.
. "$(dirname "$0")/../lib.sh"
need_root
cd "$TOP"

# lib.sh gives every test its own cache directory: $TMP/cache.
mkdir -m 0700 "$XDG_CACHE_HOME"
cache=$XDG_CACHE_HOME/bpfspec/bpftrace-versions
node_bin=$(readlink -f "$(command -v node)") || fail "no node on PATH"
real=$(readlink -f "$(command -v "${BPFSPEC_BPFTRACE:-bpftrace}")") || fail "no bpftrace"
want=$("$real" --version | sed -n 's/.* v\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p')
[ -n "$want" ] || fail "cannot read the version of $real"

# gen_with BT NAME — bpfspec gen with BPFSPEC_BPFTRACE=BT; its program in
# $TMP/NAME.bt, its -v notes in $TMP/NAME.err.
gen_with() {
	BPFSPEC_BPFTRACE=$1 "$BPFSPEC" gen libuv-phases --binary "$node_bin" -v \
		>"$TMP/$2.bt" 2>"$TMP/$2.err" || { cat "$TMP/$2.err" >&2; fail "bpfspec gen ($2) failed"; }
	grep -q "note: bpftrace $want" "$TMP/$2.err" || { cat "$TMP/$2.err" >&2; fail "$2: no 'bpftrace $want' note"; }
}
asked() { ! grep -q "bpftrace $want (remembered" "$TMP/$1.err"; }
remembered() { grep -q "bpftrace $want (remembered" "$TMP/$1.err"; }

if head -c 4 "$real" | grep -q 'ELF'; then
	# A copy of the real bpftrace, so that it can be touched.
	mkdir "$TMP/bt"
	cp "$real" "$TMP/bt/bpftrace"
	bt=$(readlink -f "$TMP/bt/bpftrace")	# kept under its real path

	gen_with "$bt" first
	asked first || fail "the first run did not ask bpftrace"
	[ "$(stat -c %a "$cache")" = 600 ] || fail "the cache file's mode is $(stat -c %a "$cache"), not 600"
	[ "$(stat -c %a "${cache%/*}")" = 700 ] || fail "the cache directory's mode is not 700"
	grep -q " $want $bt\$" "$cache" || { cat "$cache" >&2; fail "no entry for $bt"; }
	gen_with "$bt" second
	remembered second || fail "the second run asked bpftrace again"
	cmp -s "$TMP/first.bt" "$TMP/second.bt" || fail "the remembered version gave another program"

	# Found through PATH under its usual name: the same file, remembered.
	PATH=$TMP/bt:$PATH gen_with bpftrace by_name
	remembered by_name || fail "bpftrace found through PATH was asked again"

	# Touched: asked again, and one entry for it still.
	touch -d '2001-01-01' "$bt"
	gen_with "$bt" touched
	asked touched || fail "a touched bpftrace was not asked again"
	[ "$(grep -c " $bt\$" "$cache")" = 1 ] || { cat "$cache" >&2; fail "more than one entry for $bt"; }

	# A cache file that others may write is not read; a private one
	# replaces it.
	chmod 0666 "$cache"
	gen_with "$bt" foreign
	asked foreign || fail "a world-writable cache file was read"
	[ "$(stat -c %a "$cache")" = 600 ] || fail "the world-writable cache file was not replaced"

	# What it saves: median of 5 runs each way.
	t_gen() {
		local t0=$EPOCHREALTIME
		BPFSPEC_BPFTRACE=$bt "$BPFSPEC" gen libuv-phases --binary "$node_bin" >/dev/null 2>&1
		awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'
	}
	for i in 1 2 3 4 5; do
		rm -f "$cache"
		t_gen >>"$TMP/asked.ms"
		t_gen >>"$TMP/remembered.ms"
	done
	med() { sort -g "$1" | sed -n 3p; }
	echo "measured: bpfspec gen libuv-phases, bpftrace asked: $(med "$TMP/asked.ms") ms; remembered: $(med "$TMP/remembered.ms") ms (medians of 5)"
else
	echo "measured: $real is not an ELF executable (a wrapper): asked every time"
fi

# A wrapper script is asked every time, and never written down.
mkdir "$TMP/wrap"
printf '#!/bin/sh\nexec %s "$@"\n' "$real" >"$TMP/wrap/bpftrace"
chmod 0755 "$TMP/wrap/bpftrace"
gen_with "$TMP/wrap/bpftrace" wrapped1
gen_with "$TMP/wrap/bpftrace" wrapped2
asked wrapped1 && asked wrapped2 || fail "a wrapper script's version was remembered"
! grep -q "$TMP/wrap" "$cache" 2>/dev/null || fail "a wrapper script was written down"
echo "ok"
