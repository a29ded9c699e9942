# bpfspec — build into $(BUILD), `make check` runs every test, `make demo`
# traces the bundled node demo.  Respects CC, CFLAGS, LDFLAGS, PREFIX,
# DESTDIR; V=1 shows the commands.

CC ?= cc
PREFIX ?= /usr/local
BUILD ?= build
PKG_CONFIG ?= pkg-config
PKGS := yaml-0.1 libelf jansson zlib libmicrohttpd

CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 -Wswitch-enum
# -iquote: project headers by "layer/name.h" (gen/LAYERS), never by
# <name.h>, so they never hide a system header such as Check's <check.h>.
BASE_CFLAGS := -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -iquote gen -iquote $(BUILD)/gen
DEP_CFLAGS := -MMD -MP
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# zlib: CRC32 of debug files; libm: the HTML report's log colour scale.
# libmicrohttpd (serve's HTTP), libcrypt (bcrypt for its basic auth) and
# libstdc++ (__cxa_demangle for C++ names) are loaded with dlopen on first
# use (gen/util/lazylib.c), so `bpfspec run` maps none of them: only their
# headers are used at build time.
LINK_PKGS := yaml-0.1 libelf jansson zlib
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(LINK_PKGS) 2>/dev/null || \
	echo -lyaml -lelf -ljansson -lz) -lm
# libbcc (USDT notes) is loaded with dlopen when needed (gen/target/usdt.c): it
# brings LLVM, too heavy to map into every run.  Only its header is used
# at build time (not its --cflags: they add bcc/compat, whose linux/*.h
# would shadow the system's).
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
# The unit tests make bcrypt hashes of their own (test_serve_http_web).
UNIT_LIBS := -lcrypt
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check 2>/dev/null || echo -lcheck)

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCS := $(wildcard gen/*/*.c)
OBJS := $(patsubst gen/%.c,$(BUILD)/obj/%.o,$(SRCS)) $(BUILD)/obj/embedded.o \
	$(BUILD)/obj/systab_data.o
LIB_OBJS := $(filter-out $(BUILD)/obj/main/main.o,$(OBJS))
TEMPLATES := $(sort $(wildcard templates/*.bt.in templates/*.css templates/*.js))
SPECS := $(sort $(wildcard specs/*.yaml))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: print-libs print-lib-objs all deps deps-demo check matrix check-unit check-golden check-integration check-asan asan-build \
	check-valgrind demo screenshot install uninstall clean fuzz bench

all: $(BUILD)/bpfspec

$(BUILD)/bpfspec: $(OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl

$(BUILD)/obj/%.o: gen/%.c | $(BUILD)/obj $(BUILD)/gen/embedded.h
	@echo "  CC      $@"
	@mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(PKG_CFLAGS) $(CPPFLAGS) $(DEP_CFLAGS) $(CFLAGS) -c -o $@ $<

# Templates and bundled specs are embedded in the binary, so an installed
# bpfspec needs no data files to run.
$(BUILD)/gen/embedded.c $(BUILD)/gen/embedded.h: scripts/embed.sh $(TEMPLATES) $(SPECS) | $(BUILD)/gen
	@echo "  EMBED   $@"
	$(Q)sh scripts/embed.sh $(BUILD)/gen/embedded $(TEMPLATES) $(SPECS)

# Syscall and errno tables of the build machine's architecture.
$(BUILD)/gen/systab_data.c: scripts/gen-systab.sh | $(BUILD)/gen
	@echo "  GEN     $@"
	$(Q)sh scripts/gen-systab.sh "$(CC)" $@

$(BUILD)/obj/systab_data.o: $(BUILD)/gen/systab_data.c | $(BUILD)/obj
	@echo "  CC      $@"
	$(Q)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/embedded.o: $(BUILD)/gen/embedded.c | $(BUILD)/obj
	@echo "  CC      $@"
	$(Q)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(BUILD)/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(BASE_CFLAGS) $(PKG_CFLAGS) $(CHECK_CFLAGS) $(CPPFLAGS) $(DEP_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< $(LIB_OBJS) $(PKG_LIBS) -ldl $(CHECK_LIBS) $(UNIT_LIBS)

# Benchmark helpers and workloads (scripts/bench.sh); parse_bench links
# the project's objects, like the unit tests.
BENCH_BINS := $(BUILD)/bench/stamp $(BUILD)/bench/parse_bench $(BUILD)/bench/latency_mix \
	$(BUILD)/bench/syscall_sleeps $(BUILD)/bench/call_loop $(BUILD)/bench/syscall_loop

$(BUILD)/bench/parse_bench: scripts/bench/parse_bench.c $(LIB_OBJS) | $(BUILD)/bench
	@echo "  CC      $@"
	$(Q)$(CC) $(BASE_CFLAGS) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(PKG_LIBS) -ldl

$(BUILD)/bench/%: scripts/bench/%.c | $(BUILD)/bench
	@echo "  CC      $@"
	$(Q)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(BUILD)/bench/%: scripts/workloads/%.c | $(BUILD)/bench
	@echo "  CC      $@"
	$(Q)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(BUILD)/obj $(BUILD)/gen $(BUILD)/tests $(BUILD)/bench:
	$(Q)mkdir -p $@

# The libraries a program linking $(LIB_OBJS) needs: the one list that the
# fuzz harnesses and test_bench_tools link with too; and those objects.
print-libs:
	@echo $(PKG_LIBS) -ldl

print-lib-objs:
	@echo $(LIB_OBJS)

# Installs missing Debian packages and mounts tracefs (needs root):
# deps for the tests and the bench, deps-demo only what the demo uses.
deps:
	$(Q)sh scripts/setup.sh all

deps-demo:
	$(Q)sh scripts/setup.sh demo

# One run, one summary line: unit and golden tests, the modern cell of the
# version matrix (release build), then the unit and golden tests again and
# every integration test once under AddressSanitizer + UBSan (but those
# whose header says "# build: release"), the unit tests under valgrind
# (leaks are failures), and a 5 s pass of every libFuzzer harness.
check: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS)
	$(Q)$(MAKE) --no-print-directory asan-build
	$(Q)BUILD=$(BUILD) ASAN_INTEGRATION=1 bash tests/run.sh layers unit golden modern asan valgrind fuzz

check-unit: all $(UNIT_BINS)
	$(Q)BUILD=$(BUILD) bash tests/run.sh unit

check-golden: all
	$(Q)BUILD=$(BUILD) bash tests/run.sh golden

check-integration: all
	$(Q)BUILD=$(BUILD) bash tests/run.sh integration

# The unit and golden tests again, built with AddressSanitizer + UBSan.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
asan-build:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/asan CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" \
		$(BUILD)/asan/bpfspec $(patsubst $(BUILD)/%,$(BUILD)/asan/%,$(UNIT_BINS))

# The whole suite, integration tests included, with the sanitizer build
# (as in check).
check-asan: all asan-build
	$(Q)BUILD=$(BUILD) ASAN_INTEGRATION=1 bash tests/run.sh asan

check-valgrind: all $(UNIT_BINS)
	$(Q)BUILD=$(BUILD) bash tests/run.sh valgrind

# Speed, overhead, accuracy and own cost, side by side with bpftrace by
# hand, libbpf-tools, strace and perf (about 17 minutes; needs root).
# The version matrix: the core tests (scripts/matrix/core.list) on every
# cell of bpftrace {0.17, 0.23, 0.27} x node {18, 20, 22, 24, 26}; a table
# at the end and build/matrix.json.  About 40 minutes; not part of check
# (check runs the modern cell, 0.27 x node 24).
matrix: deps all
	$(Q)BUILD=$(BUILD) bash scripts/matrix/run.sh

bench: deps all $(BENCH_BINS)
	$(Q)BUILD=$(BUILD) bash scripts/bench.sh

demo: deps-demo all
	$(Q)bash scripts/demo.sh $(BUILD)/bpfspec

# The README's picture of the HTML report, drawn anew from a live run.
screenshot: deps all
	$(Q)bash scripts/screenshot.sh $(BUILD)/bpfspec docs/html-report.png

# Templates and bundled specs are inside the binary; its symbols stay (the
# window trigger is a uprobe on one of its functions).
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 $(BUILD)/bpfspec $(DESTDIR)$(PREFIX)/bin/bpfspec
	install -m 0644 docs/bpfspec.1 $(DESTDIR)$(PREFIX)/share/man/man1/bpfspec.1
	install -m 0644 completion/bpfspec.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/bpfspec

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/bpfspec $(DESTDIR)$(PREFIX)/share/man/man1/bpfspec.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/bpfspec

# libFuzzer harnesses (clang): 60 s each, or FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
fuzz: all
	$(Q)BUILD=$(BUILD) bash tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/obj/*/*.d $(BUILD)/tests/*.d)
