#!/usr/bin/env bash
# run.sh [-b "0.17 0.23 0.27"] [-n "18 20 22 24 26"] [-t "TEST..."] [-c "TEST..."]
#        [-o build/matrix.json]
# The version matrix: bpfspec's integration tests for each cell of
# bpftrace x Node.js, with a table of pass/fail per cell at the end and
# the same in JSON (-o).  Exit status 0 when every cell passed.
#
#   -b  bpftrace versions: 0.17 is the host's /usr/bin/bpftrace (Debian
#       12), 0.23 Debian trixie's, 0.27 Debian sid's (bpftrace-root.sh)
#   -n  Node.js majors (node.sh: the official build from the npm registry)
#   -t  the tests run in every cell (tests/integration/test_NAME.sh;
#       default: the "node" lines of core.list)
#   -c  tests whose workloads are C programs, not node: run once per
#       bpftrace version (in its first node cell), their column is "C"
#       (default: the "c" lines of core.list)
#
# Each test runs with BPFSPEC_BPFTRACE and BPFSPEC_TEST_NODE set
# (tests/lib.sh puts both first on PATH); logs go to
# build/matrix/BPFTRACE-nodeN/TEST.log.  BUILD names the build directory
# (default build; make matrix builds it first).  Needs root.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
export BUILD TOP=$top BPFSPEC=$BUILD/bpfspec

bpftraces="0.17 0.23 0.27"
nodes="18 20 22 24 26"
# The core tests: scripts/matrix/core.list.
tests=$(awk '$1 == "node" { printf "%s ", $2 }' "$here/core.list")
ctests=$(awk '$1 == "c" { printf "%s ", $2 }' "$here/core.list")
json=$BUILD/matrix.json
while getopts b:n:t:c:o: opt; do
	case $opt in
	b) bpftraces=$OPTARG ;;
	n) nodes=$OPTARG ;;
	t) tests=$OPTARG ;;
	c) ctests=$OPTARG ;;
	o) json=$OPTARG ;;
	*) sed -n '2,3p' "$0" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "run.sh: the matrix runs bpftrace: run it as root" >&2; exit 2; }
[ -x "$BPFSPEC" ] || { echo "run.sh: no $BPFSPEC: build first (make matrix does)" >&2; exit 2; }
for t in $tests $ctests; do
	[ -f "$top/tests/integration/test_$t.sh" ] || { echo "run.sh: no test '$t'" >&2; exit 2; }
done

# bpftrace_for VERSION — prints the path of that bpftrace.
bpftrace_for() {
	case $1 in
	0.17) command -v bpftrace ;;
	0.23) sh "$here/bpftrace-root.sh" trixie ;;
	0.27) sh "$here/bpftrace-root.sh" sid ;;
	*) echo "run.sh: no source for bpftrace $1 (0.17, 0.23, 0.27)" >&2; return 1 ;;
	esac
}

mkdir -p "$BUILD/matrix"
results=$BUILD/matrix/results.tsv	# bpftrace node test status seconds
: >"$results"
declare -A cell_status
for bv in $bpftraces; do
	bt=$(bpftrace_for "$bv") || { cell_status[$bv]=setup; continue; }
	actual=$("$bt" --version 2>/dev/null | sed -n 's/.* v\([0-9.]*\).*/\1/p')
	case $actual in
	"$bv" | "$bv".*) ;;
	*) echo "run.sh: $bt is bpftrace '${actual:-?}', not $bv" >&2; cell_status[$bv]=setup; continue ;;
	esac
	first=1
	for nv in $nodes; do
		nb=$(sh "$here/node.sh" "$nv") || { printf '%s\t%s\t-\tsetup\t0\n' "$actual" "$nv" >>"$results"; continue; }
		nfull=$("$nb" --version | sed 's/^v//')
		cell=$actual-node$nfull
		mkdir -p "$BUILD/matrix/$cell"
		run_tests=$tests
		[ $first = 1 ] && run_tests="$tests $ctests"
		for t in $run_tests; do
			start=$(date +%s)
			BPFSPEC_BPFTRACE=$bt BPFSPEC_TEST_NODE=$nb \
				bash "$top/tests/integration/test_$t.sh" >"$BUILD/matrix/$cell/$t.log" 2>&1
			rc=$?
			secs=$(($(date +%s) - start))
			st=pass
			[ $rc -eq 0 ] || st=fail
			col=$nfull
			case " $ctests " in *" $t "*) col=C ;; esac
			printf '%s\t%s\t%s\t%s\t%s\n' "$actual" "$col" "$t" "$st" "$secs" >>"$results"
			printf '%-5s bpftrace %s, node %s: %s (%s s)\n' "$st" "$actual" "$col" "$t" "$secs"
			[ $st = pass ] || sed 's/^/    /' "$BUILD/matrix/$cell/$t.log" | tail -15
		done
		first=0
	done
done

python3 - "$results" "$json" <<'EOF'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
cells = {}
for bt, node, test, status, secs in rows:
    c = cells.setdefault((bt, node), {"bpftrace": bt, "node": node, "tests": {}, "seconds": 0})
    if test != "-":
        c["tests"][test] = status
    c["seconds"] += int(secs)
    if status == "setup":
        c["setup_failed"] = True
for c in cells.values():
    c["result"] = "pass" if c["tests"] and not c.get("setup_failed") and \
        all(s == "pass" for s in c["tests"].values()) else "fail"
bts = sorted({c["bpftrace"] for c in cells.values()}, key=lambda v: [int(x) for x in v.split(".")])
def node_key(v):
    return [1e9] if v == "C" else [int(x) for x in v.split(".")]
nodes = sorted({c["node"] for c in cells.values()}, key=node_key)
width = max([len(n) for n in nodes] + [6]) + 2
print()
print("bpftrace".ljust(10) + "".join(("node " + n if n != "C" else "C workloads").ljust(width + 5) for n in nodes))
for bt in bts:
    line = bt.ljust(10)
    for n in nodes:
        c = cells.get((bt, n))
        if not c:
            mark = "-"
        else:
            bad = [t for t, s in c["tests"].items() if s != "pass"]
            mark = "pass" if c["result"] == "pass" else "FAIL " + ",".join(bad) if bad else "FAIL setup"
        line += mark.ljust(width + 5)
    print(line)
out = {"schema": 1, "cells": sorted(cells.values(), key=lambda c: (c["bpftrace"], c["node"])),
       "passed": sum(c["result"] == "pass" for c in cells.values()), "cells_total": len(cells)}
json.dump(out, open(sys.argv[2], "w"), indent=2)
print("\n%d of %d cells passed; %s" % (out["passed"], out["cells_total"], sys.argv[2]))
sys.exit(0 if out["passed"] == out["cells_total"] else 1)
EOF
