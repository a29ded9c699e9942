#!/usr/bin/env bash
# screenshot.sh BPFSPEC OUT.png — the picture of the HTML report in the
# README: traces the bundled node demo (scripts/workloads/phases.js) with
# libuv-phases for twenty 0.5 s intervals, writes the
# page with -o html, and has Debian's chromium draw its top half.  Needs
# root (tracing) and chromium (scripts/setup.sh); `make screenshot`.
set -eu
bpfspec=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
node "$here/workloads/phases.js" --worker &
app=$!
trap 'kill $app 2>/dev/null; wait $app 2>/dev/null || true; rm -rf "$dir"' EXIT
sleep 1
"$bpfspec" run libuv-phases -p "$app" -i 0.5 -n 20 -o html --output "$dir/report.html"
# Chromium's profile and crash dumps go to the temporary directory too.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$dir/profile" --window-size=1000,1500 \
	--screenshot="$dir/shot.png" "file://$dir/report.html" >/dev/null 2>&1
mv "$dir/shot.png" "$out"
echo "screenshot: $out"
