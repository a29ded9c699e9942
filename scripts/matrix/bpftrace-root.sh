#!/bin/sh
# bpftrace-root.sh SUITE — prints the path of a bpftrace from Debian SUITE
# (trixie: 0.23, sid: 0.27), for BPFSPEC_BPFTRACE.  The first time, makes
# a Debian root that holds it:
# `debootstrap --variant=minbase --include=bpftrace SUITE` from the Debian
# mirror the host's apt uses (scripts/matrix/host-mirror.sh;
# BPFSPEC_MATRIX_MIRROR overrides) into $BPFSPEC_MATRIX_CACHE (default
# /var/cache/bpfspec-matrix), built in a temporary directory and renamed into place when complete, so a
# root that exists is whole.  The host's own packages are not touched
# (debootstrap is installed when missing).  Needs root.
#
# The path printed is a small script beside the root that runs the root's
# bpftrace with the root's dynamic loader and libraries, without chroot:
# every other path (the traced binary, /proc, /sys, the tests' files)
# means the same file for it as for the host, so uprobes by path attach
# where they should.  It execs bpftrace: signals and the exit status are
# bpftrace's own.
set -eu
suite=${1:?usage: bpftrace-root.sh SUITE}
case $suite in
*[!a-z0-9-]* | "") echo "bpftrace-root.sh: bad suite name '$suite'" >&2; exit 2 ;;
esac
cache=${BPFSPEC_MATRIX_CACHE:-/var/cache/bpfspec-matrix}
root=$cache/root-$suite
wrapper=$cache/bpftrace-$suite
if [ -x "$root/usr/bin/bpftrace" ] && [ -x "$wrapper" ] &&
	grep -q -- --argv0 "$wrapper"; then
	echo "$wrapper"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "bpftrace-root.sh: needs root (debootstrap)" >&2; exit 1; }
if [ ! -x "$root/usr/bin/bpftrace" ]; then
	if ! command -v debootstrap >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			debootstrap >&2
	fi
	mkdir -p "$cache"
	chmod 755 "$cache"
	tmp=$(mktemp -d "$cache/.root-$suite.XXXXXX")
	trap 'rm -rf "$tmp" "$tmp.log"' EXIT
	# The host's own Debian mirror, as its apt sources name it
	# (BPFSPEC_MATRIX_MIRROR overrides).
	mirror=${BPFSPEC_MATRIX_MIRROR:-}
	[ -n "$mirror" ] || mirror=$(sh "$(dirname "$0")/host-mirror.sh") || exit 1
	echo "bpftrace-root.sh: debootstrap $suite from $mirror (a minute or two)" >&2
	debootstrap --variant=minbase --include=bpftrace "$suite" "$tmp" "$mirror" \
		>"$tmp.log" 2>&1 || { tail -20 "$tmp.log" >&2; exit 1; }
	chmod 755 "$tmp"
	rm -rf "$root"	# a root without bpftrace: from an interrupted run
	mv "$tmp" "$root"
	trap - EXIT
	rm -f "$tmp.log"
fi
# The wrapper: the root's bpftrace started by the root's own dynamic
# loader with the root's library directory (ld.so --library-path, not
# LD_LIBRARY_PATH: what bpftrace starts gets the host's libraries).  No
# chroot, no mount: a path that exists in the root and on the host
# (/usr/bin/bash, libc) names the host's file, as the traced process sees
# it; binding host files into a chroot instead would break the root's
# bpftrace when it is a library bpftrace loads (sid needs GLIBC_2.38).
# The loader runs through a symlink named "bpftrace", so the process's
# comm is bpftrace, as for a normal install (pgrep -x bpftrace finds it),
# and --argv0 gives it argv[0] "bpftrace".  The wrapper execs: bpftrace
# keeps its pid, signals, exit status and every inherited descriptor
# (bpfspec hands the program over on /dev/fd/3).
case $(uname -m) in
x86_64) multiarch=x86_64-linux-gnu loader=ld-linux-x86-64.so.2 ;;
aarch64) multiarch=aarch64-linux-gnu loader=ld-linux-aarch64.so.1 ;;
*) echo "bpftrace-root.sh: unsupported machine $(uname -m)" >&2; exit 2 ;;
esac
libdir=$root/usr/lib/$multiarch
link=$root/usr/local/lib/bpfspec-matrix/bpftrace
mkdir -p "${link%/*}"
ln -sfn "../../../lib/$multiarch/$loader" "$link.tmp"
mv -fT "$link.tmp" "$link"
cat >"$wrapper.tmp" <<WRAPPER
#!/bin/sh
# bpftrace from $root (made by bpfspec's scripts/matrix/bpftrace-root.sh)
exec '$link' --argv0 bpftrace --library-path '$libdir' '$root/usr/bin/bpftrace' "\$@"
WRAPPER
chmod 755 "$wrapper.tmp"
mv "$wrapper.tmp" "$wrapper"
"$wrapper" --version >&2
echo "$wrapper"
