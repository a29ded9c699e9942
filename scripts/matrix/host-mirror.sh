#!/bin/sh
# host-mirror.sh — prints the Debian archive this host's apt takes its
# own release from (the first enabled "deb" source whose suite is the
# host's codename, /etc/os-release VERSION_CODENAME), as apt reads its
# sources: /etc/apt/sources.list and sources.list.d/*.list (one-line
# form, options in [...] skipped) and sources.list.d/*.sources (deb822:
# Types, URIs, Suites, Enabled).  A mirror of the host's release is a
# mirror of Debian, so debootstrap takes the other suites from it too.
# Exits 1, saying what to set, when there is none.  APT_ROOT (default /)
# is prepended to every path read, for tests.
set -eu
root=${APT_ROOT:-}
codename=$(sed -n 's/^VERSION_CODENAME=["'\'']\{0,1\}\([a-z0-9-]*\).*/\1/p' "$root/etc/os-release" 2>/dev/null | head -n 1)
if [ -z "$codename" ]; then
	echo "host-mirror.sh: no VERSION_CODENAME in $root/etc/os-release: set BPFSPEC_MATRIX_MIRROR to a Debian mirror's URL" >&2
	exit 1
fi
mirror=$({
	for f in "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk -v want="$codename" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) {
					while ($i !~ /\]$/ && i < NF)
						i++
					i++
				}
				if ($(i + 1) == want) { print $i; exit }
			}' "$f"
	done
	for f in "$root"/etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v want="$codename" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && enabled != "no" && (" " suites " ") ~ (" " want " ") && uris != "") {
					split(uris, u, " ")
					print u[1]
					found = 1
				}
				types = uris = suites = enabled = ""
			}
			/^#/ { next }
			/^[ \t]*$/ { flush(); if (found) exit; next }
			{
				key = tolower($0); sub(/:.*/, "", key)
				value = $0; sub(/^[^:]*:[ \t]*/, "", value); gsub(/[ \t]+/, " ", value)
				if (key == "types") types = value
				else if (key == "uris") uris = value
				else if (key == "suites") suites = value
				else if (key == "enabled") enabled = tolower(value)
			}
			END { if (!found) flush() }' "$f"
	done
} | sed -n '/^\(https\{0,1\}\|file\):\/\//{p;q;}')
if [ -z "$mirror" ]; then
	echo "host-mirror.sh: no enabled 'deb' source for $codename in $root/etc/apt: set BPFSPEC_MATRIX_MIRROR to a Debian mirror's URL" >&2
	exit 1
fi
echo "$mirror"
