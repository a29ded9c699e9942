#!/usr/bin/env bash
# Targets in the wild: functions found in stripped objects through their
# separate debug files, C++ methods by demangled name, `bpfspec symbols`,
# and the libuv version.  Fixtures are built here from tests/targets/.
#
# Truths: target_caller calls target_tick() -> tick_inner() exactly 300
# times; tick_inner is hidden (only .symtab names it), so in a stripped
# libtarget.so it is found only through a debug file.  cxx_ledger calls
# the two overloads of shop::billing::Ledger::Post 150 + 50 = 200 times.
# The caller also runs in a container (a private mount namespace, pivot_root
# into a directory holding it, its library and libc): its objects are seen
# through /proc/PID/root, and so are its debug files.
# Every count is exact.  /usr/bin/node's libuv is `node -p process.versions.uv`.
. "$(dirname "$0")/../lib.sh"
need_root

S=$TOP/tests/targets
CALLS=300
DELAY=30000	# the callers start on SIGUSR1 (count_run), at the latest after this

# build_lib DIR [CFLAGS...] — libtarget.so into DIR.
build_lib() {
	local dir=$1
	shift
	mkdir -p "$dir"
	cc -O1 -g -shared -fPIC "$@" -o "$dir/libtarget.so" "$S/libtarget.c"
}

# strip_lib LIB DEBUGFILE — keep LIB's debug info in DEBUGFILE, strip LIB
# and link it to DEBUGFILE's name and CRC.
strip_lib() {
	objcopy --only-keep-debug "$1" "$2"
	objcopy --strip-debug --strip-unneeded --add-gnu-debuglink="$2" "$1"
	! readelf -S "$1" | grep -q '\.symtab' || fail "$1 still has .symtab"
}

build_id() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }

# Shapes of libtarget.so, each in its own directory:
#   plain/      with .symtab
#   bid/        stripped; debug file in $TMP/dbg-bid/.build-id/xx/yyyy.debug
#               (found with --debug-dir $TMP/dbg-bid)
#   link/       stripped, no build id; debug file in link/.debug/ (debuglink)
#   bare/       stripped, no debug file anywhere
build_lib "$TMP/plain"
cc -O1 -g -I"$S" -o "$TMP/caller" "$S/target_caller.c" -L"$TMP/plain" -ltarget

build_lib "$TMP/bid"
strip_lib "$TMP/bid/libtarget.so" "$TMP/bid/libtarget.so.debug"
bid=$(build_id "$TMP/bid/libtarget.so")
[ -n "$bid" ] || fail "no build id in bid/libtarget.so"
mkdir -p "$TMP/dbg-bid/.build-id/${bid:0:2}"
mv "$TMP/bid/libtarget.so.debug" "$TMP/dbg-bid/.build-id/${bid:0:2}/${bid:2}.debug"

build_lib "$TMP/link" -Wl,--build-id=none
mkdir -p "$TMP/link/.debug"
strip_lib "$TMP/link/libtarget.so" "$TMP/link/.debug/libtarget.so.debug"
[ -z "$(build_id "$TMP/link/libtarget.so")" ] || fail "link/libtarget.so has a build id"

build_lib "$TMP/bare"
strip_lib "$TMP/bare/libtarget.so" "$TMP/bare/libtarget.so.debug"
rm "$TMP/bare/libtarget.so.debug"
bare_id=$(build_id "$TMP/bare/libtarget.so")

# count_run PID OUT ARGS... — runs bpfspec ARGS -v (stdout to OUT, stderr
# to $TMP/stderr), sends PID its start signal once the window has begun
# (-v: "the window begins", after bpftrace attached and the program
# dropped what it saw while attaching; a fixed delay lost the first calls,
# or all of them, when the host was slow), and returns bpfspec's exit
# status.  A window that never begins fails the test (await_window).
count_run() {
	local target=$1 out=$2 b
	shift 2
	: >"$TMP/stderr"	# now, not in the background child: see await_window
	"$BPFSPEC" "$@" -v >"$out" 2>"$TMP/stderr" &
	b=$!
	await_window "$b" "$TMP/stderr" 60
	kill -USR1 "$target"
	wait "$b"
}

# start_caller SHAPE — runs the caller on SHAPE's library; sets $pid.
start_caller() {
	LD_LIBRARY_PATH=$TMP/$1 "$TMP/caller" "$CALLS" "$DELAY" &
	pid=$!
	cleanup_pid "$pid"
	sleep 0.2
}

# check_symbols SHAPE DEBUGFILE [OPTIONS...] — with the caller running on
# SHAPE's library (left in $pid), `bpfspec symbols` lists tick_inner in it,
# through DEBUGFILE ("-": through its own .symtab).
check_symbols() {
	local shape=$1 debug=$2 lib=$TMP/$1/libtarget.so
	shift 2
	start_caller "$shape"
	local rc=0
	"$BPFSPEC" symbols -p "$pid" "$@" 'tick_*' >"$TMP/$shape.sym" 2>"$TMP/stderr" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "$shape: bpfspec symbols exited $rc"; }
	grep -qxF "$(printf 'function\t%s\ttick_inner' "$lib")" "$TMP/$shape.sym" ||
		{ cat "$TMP/$shape.sym"; fail "$shape: symbols does not list tick_inner in $lib"; }
	if [ "$debug" != - ]; then
		grep -qF "# $lib: 1 function matching from debug file $debug" "$TMP/$shape.sym" ||
			{ cat "$TMP/$shape.sym"; fail "$shape: symbols does not name the debug file $debug"; }
	fi
}

# check_count SHAPE DEBUGFILE [OPTIONS...] — check_symbols, then a traced
# run counts every call of tick_inner, on SHAPE's library.
check_count() {
	local shape=$1 debug=$2 lib=$TMP/$1/libtarget.so
	check_symbols "$@"
	shift 2
	local rc=0
	count_run "$pid" "$TMP/$shape.json" latency -p "$pid" tick_inner -d 0 -o json "$@" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "$shape: bpfspec latency exited $rc"; }
	wait "$pid" || true
	local r=$TMP/$shape.json count
	count=$(jqr "$r" '.probes[0].count')
	echo "measured: $shape: calls counted $count (truth $CALLS)"
	[ "$count" -eq "$CALLS" ] || fail "$shape: counted $count calls, expected $CALLS"
	[ "$(jqr "$r" '.probes[0].object')" = "$lib" ] || fail "$shape: object is not $lib"
	if [ "$debug" != - ]; then
		[ "$(jqr "$r" '.probes[0].debug_file')" = "$debug" ] ||
			fail "$shape: the report does not name the debug file $debug"
	fi
}

check_count plain -
check_count link "$TMP/link/.debug/libtarget.so.debug"

# A debug file in a --debug-dir: bpfspec finds the function (symbols, gen),
# but bpftrace 0.17 looks for debug files only in the standard places and
# refuses an address it cannot place in a function without --unsafe: the
# run stops before bpftrace with exit 4, saying where to link the file.
bid_debug=$TMP/dbg-bid/.build-id/${bid:0:2}/${bid:2}.debug
check_symbols bid "$bid_debug" --debug-dir "$TMP/dbg-bid"
cat >"$TMP/tick.yaml" <<'YAML'
name: tick
objects: ["libtarget.so"]
probes:
  - name: tick
    kind: latency
    function: tick_inner
YAML
"$BPFSPEC" gen "$TMP/tick.yaml" -p "$pid" --debug-dir "$TMP/dbg-bid" >"$TMP/bid.bt" ||
	fail "gen with --debug-dir exited $?"
addr=0x$(nm "$bid_debug" | awk '$3 == "tick_inner" { sub(/^0+/, "", $1); print $1 }')
grep -qF "uprobe:$TMP/bid/libtarget.so:$addr" "$TMP/bid.bt" ||
	{ cat "$TMP/bid.bt"; fail "gen does not probe tick_inner at $addr (from the debug file)"; }
set +e
"$BPFSPEC" latency -p "$pid" tick_inner -d 1 --debug-dir "$TMP/dbg-bid" >/dev/null 2>"$TMP/bid.err"
rc=$?
set -e
kill "$pid" 2>/dev/null || true
cat "$TMP/bid.err"
[ "$rc" -eq 4 ] || fail "a debug file bpftrace cannot see: exit $rc, expected 4"
grep -qF "ln -s $bid_debug /usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" "$TMP/bid.err" ||
	fail "the error does not say where to link the debug file"

# Stripped, no debug file: exit 4, and the error names the object, the
# symbol, the paths tried and what to install.
start_caller bare
set +e
"$BPFSPEC" latency -p "$pid" tick_inner -d 1 --debug-dir "$TMP/dbg-none" >/dev/null 2>"$TMP/bare.err"
rc=$?
set -e
kill "$pid" 2>/dev/null || true
cat "$TMP/bare.err"
[ "$rc" -eq 4 ] || fail "stripped without a debug file: exit $rc, expected 4"
for want in "function 'tick_inner'" "$TMP/bare/libtarget.so (stripped: no .symtab" \
	"$TMP/dbg-none/.build-id/${bare_id:0:2}/${bare_id:2}.debug (no such file)" \
	"/usr/lib/debug/.build-id/${bare_id:0:2}/${bare_id:2}.debug (no such file)" \
	"$TMP/bare/.debug/libtarget.so.debug (no such file)" \
	"/usr/lib/debug$TMP/bare/libtarget.so.debug (no such file)" \
	"hint: install the debug symbols of the package that ships $TMP/bare/libtarget.so (PKG-dbgsym on Debian)" \
	"or pass --debug-dir"; do
	grep -qF -- "$want" "$TMP/bare.err" || fail "the error lacks: $want"
done

# A debug file of another build is rejected: by build id, and by CRC32.
build_lib "$TMP/other" -O2 -DTARGET_OTHER_BUILD -Wl,--build-id=sha1
objcopy --only-keep-debug "$TMP/other/libtarget.so" "$TMP/other.debug"
[ "$(build_id "$TMP/other.debug")" != "$bid" ] || fail "the other build has the same build id"
mkdir -p "$TMP/dbg-wrong/.build-id/${bid:0:2}"
cp "$TMP/other.debug" "$TMP/dbg-wrong/.build-id/${bid:0:2}/${bid:2}.debug"
start_caller bid
set +e
"$BPFSPEC" latency -p "$pid" tick_inner -d 1 --debug-dir "$TMP/dbg-wrong" >/dev/null 2>"$TMP/wrong.err"
rc=$?
set -e
kill "$pid" 2>/dev/null || true
cat "$TMP/wrong.err"
[ "$rc" -eq 4 ] || fail "a mismatched debug file (build id): exit $rc, expected 4"
grep -qF "debug file $TMP/dbg-wrong/.build-id/${bid:0:2}/${bid:2}.debug is not the one of $TMP/bid/libtarget.so: does not match: build id" "$TMP/wrong.err" ||
	fail "the mismatched build id is not named"

cp -r "$TMP/link" "$TMP/link-wrong"
cp "$TMP/other.debug" "$TMP/link-wrong/.debug/libtarget.so.debug"
start_caller link-wrong
set +e
"$BPFSPEC" latency -p "$pid" tick_inner -d 1 >/dev/null 2>"$TMP/crc.err"
rc=$?
set -e
kill "$pid" 2>/dev/null || true
cat "$TMP/crc.err"
[ "$rc" -eq 4 ] || fail "a mismatched debug file (CRC): exit $rc, expected 4"
grep -qF "$TMP/link-wrong/.debug/libtarget.so.debug (does not match: CRC32" "$TMP/crc.err" ||
	fail "the mismatched CRC is not named"

# A process in a container (its own mount namespace and root, entered
# with pivot_root): its objects are /proc/PID/root/..., and debug files are
# looked up inside that root, then on the host.
# make_root DIR SHAPE — a root holding the caller, SHAPE's libtarget.so
# (with its .debug/ directory when it has one), libc and the loader.
make_root() {
	local root=$1 lib
	mkdir -p "$root/app"
	cp "$TMP/caller" "$root/app/"
	cp -r "$TMP/$2/." "$root/app/"
	for lib in $(ldd "$TMP/caller" | awk '$1 ~ /^\// { print $1 } $3 ~ /^\// && $1 !~ /libtarget/ { print $3 }'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
# start_contained ROOT — runs the caller inside ROOT; sets $pid.
start_contained() {
	unshare -m --propagation private sh -c 'mount --bind "$1" "$1" && cd "$1" && mkdir -p old &&
		pivot_root . old && LD_LIBRARY_PATH=/app exec /app/caller "$2" "$3"' sh "$1" "$CALLS" "$DELAY" &
	pid=$!
	cleanup_pid "$pid"
	sleep 0.5
	[ "$(readlink "/proc/$pid/exe")" = /app/caller ] || fail "the contained caller did not start"
}

make_root "$TMP/croot-link" link
start_contained "$TMP/croot-link"
rc=0
"$BPFSPEC" symbols -p "$pid" 'tick_*' >"$TMP/croot-link.sym" 2>"$TMP/stderr" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "container: symbols exited $rc"; }
grep -qF "# /proc/$pid/root/app/libtarget.so: 1 function matching from debug file /proc/$pid/root/app/.debug/libtarget.so.debug" \
	"$TMP/croot-link.sym" || { cat "$TMP/croot-link.sym"; fail "container: debug file not found in its root"; }
count_run "$pid" "$TMP/croot-link.json" latency -p "$pid" tick_inner -d 0 -o json || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "container: latency exited $rc"; }
wait "$pid" || true
count=$(jqr "$TMP/croot-link.json" '.probes[0].count')
echo "measured: container (debuglink): calls counted $count (truth $CALLS)"
[ "$count" -eq "$CALLS" ] || fail "container: counted $count calls, expected $CALLS"
[ "$(jqr "$TMP/croot-link.json" '.probes[0].object')" = "/proc/$pid/root/app/libtarget.so" ] ||
	fail "container: the object is not reached through /proc/$pid/root"

# The container's own /usr/lib/debug/.build-id: bpfspec finds it there
# (not on the host), bpftrace would not: exit 4 with the fix.
make_root "$TMP/croot-bid" bid
mkdir -p "$TMP/croot-bid/usr/lib/debug/.build-id/${bid:0:2}"
cp "$bid_debug" "$TMP/croot-bid/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
start_contained "$TMP/croot-bid"
rc=0
"$BPFSPEC" symbols -p "$pid" 'tick_*' >"$TMP/croot-bid.sym" 2>"$TMP/stderr" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "container: symbols exited $rc"; }
grep -qF "from debug file /proc/$pid/root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" \
	"$TMP/croot-bid.sym" || { cat "$TMP/croot-bid.sym"; fail "container: build-id file not found in its root"; }
set +e
"$BPFSPEC" latency -p "$pid" tick_inner -d 1 >/dev/null 2>"$TMP/croot-bid.err"
rc=$?
set -e
kill "$pid" 2>/dev/null || true
[ "$rc" -eq 4 ] || { cat "$TMP/croot-bid.err"; fail "container build-id file: exit $rc, expected 4"; }
grep -qF "ln -s /proc/$pid/root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug /usr/lib/debug/.build-id/" \
	"$TMP/croot-bid.err" || { cat "$TMP/croot-bid.err"; fail "container: the error does not say where to link"; }

# C++: one name, both overloads, every call.
g++ -O1 -g -o "$TMP/ledger" "$S/cxx_ledger.cpp"
"$BPFSPEC" symbols --binary "$TMP/ledger" 'shop::billing::Ledger::Post' >"$TMP/ledger.sym"
cat "$TMP/ledger.sym"
n=$(grep -c "^function	$TMP/ledger	shop::billing::Ledger::Post(" "$TMP/ledger.sym" || true)
[ "$n" -eq 2 ] || fail "symbols lists $n overloads of Ledger::Post, expected 2"
grep -qF "shop::billing::Ledger::Post(long)	_ZN4shop7billing6Ledger4PostEl" "$TMP/ledger.sym" ||
	fail "symbols does not show the mangled name beside the demangled one"
"$TMP/ledger" 150 50 "$DELAY" &
pid=$!
cleanup_pid "$pid"
sleep 0.2
rc=0
count_run "$pid" "$TMP/ledger.json" latency -p "$pid" shop::billing::Ledger::Post -d 0 -o json || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "C++ latency exited $rc"; }
wait "$pid" || true
grep -F "shop::billing::Ledger::Post: 2 symbols at 2 addresses in $TMP/ledger" "$TMP/stderr" ||
	{ cat "$TMP/stderr"; fail "-v does not say how many symbols matched"; }
count=$(jqr "$TMP/ledger.json" '.probes[0].count')
echo "measured: Ledger::Post calls counted $count (truth 200)"
[ "$count" -eq 200 ] || fail "counted $count calls of Ledger::Post, expected 200"
[ "$(jqr "$TMP/ledger.json" '.probes[0].matched_symbols')" -eq 2 ] || fail "matched_symbols is not 2"

# USDT probes are listed with their argument count.
cc -O1 -g -o "$TMP/sdt_marks" "$S/sdt_marks.c"
"$BPFSPEC" symbols --binary "$TMP/sdt_marks" 'shop:*' >"$TMP/sdt.sym"
cat "$TMP/sdt.sym"
grep -qxF "$(printf 'usdt\t%s\tshop:tick\t2 args' "$TMP/sdt_marks")" "$TMP/sdt.sym" ||
	fail "symbols does not list usdt shop:tick with 2 args"
grep -qxF "$(printf 'usdt\t%s\tshop:close\t0 args' "$TMP/sdt_marks")" "$TMP/sdt.sym" ||
	fail "symbols does not list usdt shop:close"
[ "$("$BPFSPEC" symbols --binary "$TMP/sdt_marks" -o json | jq -c '[.usdt[] | [.provider, .name, .args]]')" = \
	'[["shop","close",0],["shop","tick",2]]' ] || fail "symbols -o json lists other USDT probes"

# libuv: the version node reports, from its code, in symbols and reports.
uv=$(node -p process.versions.uv)
[ "$("$BPFSPEC" symbols --binary "$(command -v node)" -o json 'uv_version*' | jq -r .libuv_version)" = "$uv" ] ||
	fail "symbols does not give node's libuv $uv"
node -e 'setTimeout(() => {}, 4000)' &
pid=$!
cleanup_pid "$pid"
sleep 0.5
rc=0
"$BPFSPEC" latency -p "$pid" uv__io_poll -d 1 -o json >"$TMP/node.json" 2>"$TMP/stderr" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "latency on node exited $rc"; }
got=$(jqr "$TMP/node.json" '.target.libuv_version')
echo "measured: libuv version $got (node says $uv)"
[ "$got" = "$uv" ] || fail "the report says libuv $got, node says $uv"
echo "ok: targets"
