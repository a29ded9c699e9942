#!/usr/bin/env bash
# scripts/matrix/host-mirror.sh against apt configurations made here
# (APT_ROOT): the mirror it prints, or its exit status 1 and message.
# Prints "ok host-mirror/CASE" or "FAIL host-mirror/CASE" per case.
. "$(dirname "$0")/../lib.sh"
script=$TOP/scripts/matrix/host-mirror.sh

# case NAME EXPECTED — runs the script on $TMP/NAME (made by the caller);
# EXPECTED is the line it must print, or "error" for exit 1 with a
# message naming BPFSPEC_MATRIX_MIRROR.
check_case() {
	local name=$1 want=$2 got rc=0
	got=$(APT_ROOT=$TMP/$name sh "$script" 2>"$TMP/$name.err") || rc=$?
	if [ "$want" = error ]; then
		if [ "$rc" -eq 1 ] && [ -z "$got" ] && grep -q BPFSPEC_MATRIX_MIRROR "$TMP/$name.err"; then
			echo "ok host-mirror/$name"
		else
			echo "FAIL host-mirror/$name (status $rc, printed '$got', said: $(cat "$TMP/$name.err"))"
		fi
	elif [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
		echo "ok host-mirror/$name"
	else
		echo "FAIL host-mirror/$name (status $rc, printed '$got', expected '$want')"
	fi
}

# root NAME CODENAME — an empty apt configuration for release CODENAME.
root() {
	mkdir -p "$TMP/$1/etc/apt/sources.list.d"
	printf 'PRETTY_NAME="Debian"\nVERSION_CODENAME=%s\nID=debian\n' "$2" >"$TMP/$1/etc/os-release"
}

root oneline bookworm
cat >"$TMP/oneline/etc/apt/sources.list" <<'LIST'
# deb http://commented.example/debian bookworm main
deb http://security.example/debian-security bookworm-security main
deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://mirror.example/debian bookworm main contrib
deb http://second.example/debian bookworm main
LIST
check_case oneline http://mirror.example/debian

root deb822 trixie
cat >"$TMP/deb822/etc/apt/sources.list.d/debian.sources" <<'SOURCES'
Types: deb
URIs: http://disabled.example/debian
Suites: trixie
Enabled: no

Types: deb-src
URIs: http://source.example/debian
Suites: trixie

# the archive
Types: deb
URIs: https://mirror.example/debian http://other.example/debian
Suites: trixie trixie-updates
Components: main

Types: deb
URIs: http://security.example/debian-security
Suites: trixie-security
SOURCES
check_case deb822 https://mirror.example/debian

root last_record bookworm
printf 'Types: deb\nURIs: file:///srv/debian\nSuites: bookworm\n' \
	>"$TMP/last_record/etc/apt/sources.list.d/local.sources"
check_case last_record file:///srv/debian

root other_suites_only bookworm
echo 'deb http://security.example/debian-security bookworm-security main' \
	>"$TMP/other_suites_only/etc/apt/sources.list"
echo 'deb cdrom:[Debian]/ bookworm main' >"$TMP/other_suites_only/etc/apt/sources.list.d/cd.list"
check_case other_suites_only error

mkdir -p "$TMP/no_codename/etc"
echo 'ID=debian' >"$TMP/no_codename/etc/os-release"
check_case no_codename error
