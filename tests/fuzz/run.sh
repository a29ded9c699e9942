#!/usr/bin/env bash
# run.sh [SECONDS] — builds the libFuzzer harness for the JSON report loader
# (fuzz_report_json.c) with ASan + UBSan and runs it for SECONDS (default
# 60) from the seed corpus in tests/fuzz/corpus/report.  New inputs go to
# $BUILD/fuzz/corpus, crashes to $BUILD/fuzz/ (the seeds stay as they are).
# Needs clang with libFuzzer (Debian: libclang-rt-14-dev) and a built tree
# (`make`: the generated systab_data.c and embedded.c).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
cd "$top"
BUILD=${BUILD:-build}
CLANG=${CLANG:-clang}
secs=${1:-60}
out=$BUILD/fuzz
mkdir -p "$out/corpus"
[ -f "$BUILD/gen/systab_data.c" ] && [ -f "$BUILD/gen/embedded.c" ] ||
	{ echo "run.sh: run make first ($BUILD/gen/*.c missing)" >&2; exit 2; }
srcs=$(ls gen/*.c | grep -v '^gen/main\.c$')
# shellcheck disable=SC2086
"$CLANG" -std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-iquote gen -I"$BUILD/gen" -o "$out/fuzz_report_json" \
	tests/fuzz/fuzz_report_json.c $srcs "$BUILD/gen/systab_data.c" "$BUILD/gen/embedded.c" \
	$(pkg-config --libs jansson yaml-0.1 libelf 2>/dev/null || echo -ljansson -lyaml -lelf)
exec "$out/fuzz_report_json" -max_total_time="$secs" -max_len=16384 -timeout=10 \
	-dict=tests/fuzz/report.dict -artifact_prefix="$out/" \
	"$out/corpus" tests/fuzz/corpus/report
