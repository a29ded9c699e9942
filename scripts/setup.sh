#!/bin/sh
# setup.sh [demo|all] — makes this machine ready to build and run bpfspec
# (demo: what `make demo` uses) or also to test and benchmark it (all, the
# default): installs the Debian packages that are missing (and, for all,
# the browser test's npm package) and mounts tracefs.
# Safe to run again; does nothing that is already done.
set -eu
started=$(date +%s)
profile=${1:-all}
case $profile in
demo | all) ;;
*) echo "usage: setup.sh [demo|all]" >&2; exit 2 ;;
esac

# prometheus: promtool (tests/integration/test_prom.sh checks -o prom with it,
# test_mixin.sh the alerting rules and the dashboard's queries) and the server
# that test_serve_prometheus.sh scrapes serve with; about 19 MB to download,
# 96 MB installed.
# python3-jsonschema, python3-yaml: scripts/validate-json-schema.py (run with
# /usr/bin/python3) checks specs and reports against docs/*.schema.json.
# clang, libclang-rt-14-dev: libFuzzer for tests/fuzz/run.sh.
# libbpfcc-dev: libbcc reads USDT notes (gen/target/usdt.c); systemtap-sdt-dev:
# <sys/sdt.h> for the USDT test fixture (tests/targets/usdt_prog.c).
# zlib1g-dev: CRC32 of separate debug files (gen/target/debuginfo.c), and gzip of
# serve's /metrics.
# libmicrohttpd-dev: the HTTP server of `bpfspec serve` (gen/serve/serve_http.c;
# TLS through its own GnuTLS); libcrypt-dev: crypt_r for bcrypt-hashed basic
# auth passwords.  openssl, curl: tests/unit/test_serve_http.c makes a
# self-signed certificate and requests through TLS with them.
# wrk, libbpf-tools (funclatency, syscount), linux-perf (perf trace): the
# comparators and load generator of `make bench` (scripts/bench.sh).
# podman, runc: the container runtime of tests/integration/test_serve_k8s_names.sh
# (podman writes each container's OCI config in containers/storage's layout,
# CRI-O's; runc, as crun refuses a hybrid cgroup hierarchy); podman alone
# would install crun only.
# chromium: the real browser that tests/browser/check_html.mjs drives (with
# playwright-core from npm, below) to load `-o html` reports; about 110 MB
# to download (chromium and chromium-common), 350 MB installed.
# The demo: what builds bpfspec, bpftrace, and node for the demo app.
packages="build-essential pkg-config bpftrace libelf-dev libyaml-dev libjansson-dev libbpfcc-dev zlib1g-dev
libmicrohttpd-dev libcrypt-dev nodejs"
# The tests and the bench.
[ "$profile" = demo ] || packages="$packages openssl curl
systemtap-sdt-dev check
valgrind jq strace prometheus python3-jsonschema python3-yaml clang libclang-rt-14-dev
wrk libbpf-tools linux-perf chromium podman runc"
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

# playwright-core, the npm package (no browser of its own: it drives Debian's
# /usr/bin/chromium), for tests/browser/check_html.mjs.  Pinned: 1.64.1 is
# the release built for Chromium 156, the major of bookworm's chromium.  It
# goes outside the repository, into a root-owned directory the checker reads
# (BPFSPEC_NPM_DIR overrides it); it needs Node.js 20 or later and npm.
pw_version=1.64.1
npm_dir=${BPFSPEC_NPM_DIR:-/var/cache/bpfspec-npm}
pw_json="$npm_dir/node_modules/playwright-core/package.json"
if [ "$profile" = all ] && ! grep -q "\"version\": \"$pw_version\"" "$pw_json" 2>/dev/null; then
	node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
	if ! command -v npm >/dev/null 2>&1 || [ "$node_major" -lt 20 ]; then
		echo "setup: playwright-core@$pw_version needs Node.js >= 20 and npm" \
			"(node: $(node --version 2>/dev/null || echo none)," \
			"npm: $(npm --version 2>/dev/null || echo none)); the browser test cannot run" >&2
	elif [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing playwright-core@$pw_version in $npm_dir" >&2
		echo "setup: run as root" >&2
		exit 1
	else
		echo "setup: installing playwright-core@$pw_version in $npm_dir"
		mkdir -p "$npm_dir"
		PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$npm_dir" \
			--no-save --no-audit --no-fund --no-update-notifier --loglevel=error \
			"playwright-core@$pw_version" >/dev/null
	fi
fi

# express, fastify and autocannon, the npm packages of the HTTP test
# (tests/integration/test_http_server.sh: real frameworks under real
# load), pinned, into their own root-owned directory (BPFSPEC_HTTP_NPM_DIR
# overrides it), from the npm registry the host's npm is configured with.
http_pkgs="express@4.22.3 fastify@4.29.1 autocannon@7.15.0"
http_npm_dir=${BPFSPEC_HTTP_NPM_DIR:-/var/cache/bpfspec-npm-http}
http_missing=
for pkg in $http_pkgs; do
	grep -q "\"version\": \"${pkg#*@}\"" "$http_npm_dir/node_modules/${pkg%@*}/package.json" 2>/dev/null ||
		http_missing="$http_missing $pkg"
done
if [ "$profile" = all ] && [ -n "$http_missing" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "setup: the HTTP test needs npm for$http_missing; it cannot run" >&2
	elif [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing$http_missing in $http_npm_dir" >&2
		echo "setup: run as root" >&2
		exit 1
	else
		echo "setup: installing$http_missing in $http_npm_dir"
		mkdir -p "$http_npm_dir"
		# shellcheck disable=SC2086
		npm install --prefix "$http_npm_dir" --no-save --no-audit --no-fund \
			--no-update-notifier --loglevel=error $http_pkgs >/dev/null
	fi
fi

# Tracepoints need tracefs; a fresh machine does not mount it.
if [ "$(id -u)" -eq 0 ] && ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing
	echo "setup: mounted tracefs on /sys/kernel/tracing"
fi
took=$(($(date +%s) - started))
[ "$took" -lt 5 ] || echo "setup: done in $took s"
exit 0
