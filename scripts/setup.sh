#!/bin/sh
# setup.sh — makes this machine ready to build, test and run bpfspec:
# installs the Debian packages that are missing and mounts tracefs.
# Safe to run again; does nothing that is already done.
set -eu

# prometheus: for promtool only (tests/integration/test_prom.sh checks -o prom
# with it); about 19 MB to download, 96 MB installed, server included.
# python3-jsonschema, python3-yaml: scripts/validate-json-schema.py (run with
# /usr/bin/python3) checks specs and reports against docs/*.schema.json.
# clang, libclang-rt-14-dev: libFuzzer for tests/fuzz/run.sh.
# libbpfcc-dev: libbcc reads USDT notes (gen/usdt.c); systemtap-sdt-dev:
# <sys/sdt.h> for the USDT test fixture (tests/targets/usdt_prog.c).
# zlib1g-dev: CRC32 of separate debug files (gen/debuginfo.c).
# wrk, libbpf-tools (funclatency, syscount), linux-perf (perf trace): the
# comparators and load generator of `make bench` (scripts/bench.sh).
packages="build-essential pkg-config bpftrace libelf-dev libyaml-dev libjansson-dev libbpfcc-dev zlib1g-dev
systemtap-sdt-dev check
valgrind jq strace nodejs prometheus python3-jsonschema python3-yaml clang libclang-rt-14-dev
wrk libbpf-tools linux-perf"
missing=""
for p in $packages; do
	# nodejs: any node on PATH will do (the NodeSource build included).
	if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then
		continue
	fi
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages:$missing" >&2
		echo "setup: run as root (or: sudo apt-get install$missing)" >&2
		exit 1
	fi
	echo "setup: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# Tracepoints need tracefs; a fresh machine does not mount it.
if [ "$(id -u)" -eq 0 ] && ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing
	echo "setup: mounted tracefs on /sys/kernel/tracing"
fi
exit 0
