/* resolve — finds where each probe of a spec attaches in a target.
 *
 * Syscalls and events probes use tracepoints: they need no lookup and are
 * always active.  For every latency probe, the function is looked up
 * (symtab) in the
 * objects the spec names, in order: "main" is the executable, any other
 * entry a glob over the basenames of the target's mapped objects.  The
 * first object that defines the symbol wins.  A stripped object's
 * separate debug file is searched too (debuginfo.h); a C++ name
 * (a::b::f) attaches to every overload it names (symtab.h).  A missing optional symbol
 * leaves the probe inactive with a reason and prints a warning; a missing
 * required one is an error naming the symbol and every file searched.
 *
 * Ownership: resolve_spec returns an owned result or NULL (after
 * reporting every error); resolved_free(NULL) is a no-op.  The result
 * borrows the spec and the target: keep both alive while it is used. */
#ifndef BPFSPEC_RESOLVE_H
#define BPFSPEC_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"
#include "target/target.h"

/* The OpenSSL functions a TLS reader needs, in tls_addrs' order:
 * SSL_read (its buffer at entry, its byte count at return), SSL_write (its
 * buffer at entry) and SSL_free (the connection's end).  Node's TLS
 * wrap calls SSL_read and SSL_write, never their _ex forms (node 18 to
 * 26 checked). */
enum { RESOLVE_TLS_READ, RESOLVE_TLS_WRITE, RESOLVE_TLS_FREE, RESOLVE_TLS_N };
extern const char *const resolve_tls_functions[RESOLVE_TLS_N];

typedef struct resolved_probe {
	const spec_probe *sp;	/* borrowed */
	bool active;		/* false: skipped, see reason */
	char *reason;		/* why it is inactive; NULL when active */
	const char *object;	/* path holding the symbol (borrowed from target) */
	uint64_t *addrs;	/* addresses of the symbol in object */
	size_t n_addrs;
	size_t n_names;		/* symbols matched (C++: mangled names) */
	char *debug_file;	/* separate debug file the addresses came
				 * from (owned), NULL when the object's own */
	char *tracer_path;	/* owned; set when bpftrace would not find
				 * debug_file: where it would (debuginfo.h) */
	/* A derived phase (spec 'derived'): its function is missing, and its
	 * time is taken as each gap from the return of probe gap_after[k] to
	 * the next entry of probe gap_before[k] on the same thread (indices
	 * into resolved.probes).  derived is the text reports show. */
	size_t n_gaps;
	size_t gap_after[2], gap_before[2];
	char *derived;		/* owned; NULL unless derived */
	/* The same probe in the other executables of the run, which attach
	 * beside this one (resolve_join): SAME[0..N_SAME), each an active,
	 * underived probe of a joined resolution; the array is owned, its
	 * entries borrowed. */
	const struct resolved_probe **same;
	size_t n_same;
	/* A probe whose kind reads TLS plain text (spec_kind_needs'
	 * tls_functions; resolve_tls.c): the object holding OpenSSL's
	 * functions (borrowed from target) and their addresses, indexed as
	 * resolve_tls_functions; NULL when no object has them all, and
	 * tls_missing says what was searched (owned; NULL otherwise). */
	const char *tls_object;
	uint64_t tls_addrs[RESOLVE_TLS_N];
	char *tls_missing;
} resolved_probe;

typedef struct resolved {
	const spec *sp;		/* borrowed */
	const target *tg;	/* borrowed */
	resolved_probe *probes;	/* one per spec probe, same order */
	size_t n_probes;
	size_t n_active;
	char *libuv_version;	/* "1.46.0" when the target carries libuv
				 * (libuv.h), else NULL; owned */
	/* For an entry-only spec timing libuv phases: uv_loop_close in the
	 * object of its first phase function found (borrowed from target),
	 * or NULL when that object lacks it.  A loop a thread took for its
	 * own is forgotten when it is closed (gen/kinds/latency.c). */
	const char *loop_close_object;
	uint64_t loop_close_addr;
	/* The resolutions of the same spec on the other executables of the
	 * run (resolve_join), whose uprobes this program attaches too;
	 * the array is owned, its entries borrowed. */
	const struct resolved **also;
	size_t n_also;
} resolved;

/* Derived libuv phases: for libuv >= 1.45 (and when the version is
 * unknown) pending runs between timers and idle and again between poll
 * and check; before 1.45 only between timers and idle; closing handles
 * run between check and timers in every version. */
resolved *resolve_spec(const spec *s, const target *t);
/* What a run needs beyond symbols.  Syscall probes need the raw_syscalls
 * tracepoints, which need tracefs; count probes need their tracepoint to
 * exist, and kprobe ones kprobes; a function found only in a debug file
 * that bpftrace cannot find itself cannot be attached (debuginfo.h).
 * Returns 0 when they are there (or not needed), -1 after a diagnostic
 * that says how to mount it. */
int resolve_check_tracepoints(const resolved *r);

/* One program for the processes of several executables: OTHER, the same
 * spec resolved on another executable, joins INTO.  Kernel probes are
 * INTO's alone (written once); each uprobe of INTO attaches to OTHER's
 * file too, at OTHER's addresses of the same function (resolved_probe.same,
 * resolved.also).  The program's shape is INTO's: a probe OTHER lacks
 * (or derives where INTO times the function) is not traced in OTHER's
 * processes, and one INTO lacks is traced in none (both said on stderr).
 * Refused (-1, after a diagnostic naming both executables) when one
 * program cannot be right for both: libuv versions on either side of 1.45
 * (the derived phases differ), a spec that samples stacks (their frames
 * are named with one executable's V8 layout), or span probes (their points
 * name one executable).  Both must live while INTO is used.  Returns 0. */
int resolve_join(resolved *into, const resolved *other);

void resolved_free(resolved *r);

#endif
