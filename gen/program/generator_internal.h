/* generator_internal — what generator.c shares with the kinds (gen/kinds/): the
 * program being assembled and the helpers that write attach points,
 * comments and templates.  Not for any other module.
 *
 * A kind's emit (model/kind.h) appends its probes to `out`, registers its
 * maps with gen_add_maps (so the window and END print and clear them),
 * and counts its attach points in `attach`. */
#ifndef BPFSPEC_GENERATOR_INTERNAL_H
#define BPFSPEC_GENERATOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/kind.h"
#include "program/generator.h"
#include "util/buf.h"

/* Room for the pid test of GEN_MAX_PIDS pids ("pid == 2147483647 || "
 * is 21 characters) with "/", "(", ") && " and the NUL. */
#define GEN_PID_TEXT (GEN_MAX_PIDS * 21 + 16)

/* The parts of the program gen_program assembles. */
typedef struct gen_parts {
	buf out;		/* the program so far */
	buf prints;		/* print(@map) statements for every result map */
	buf clears;		/* clear(@map) statements for result maps */
	buf late_prints;	/* print(@map) of sampled maps slow to print, after
				 * an interval's hold (gen_add_late_maps) */
	buf late_clears;	/* and their clear(@map) */
	buf helpers;		/* clear(@map) of helper maps no probe deletes from */
	buf starts;		/* statements that start a window (BEGIN and every window) */
	buf types;		/* BEGIN only: statements giving maps their type first */
	buf finals;		/* clear(@map) of maps only END clears */
	buf restarts;		/* a held start's step 1 only (window_start.bt.in):
				 * statements that mark what the probes gathered
				 * while attaching as stale, for maps they delete
				 * from (which only END may clear) */
	char *bucket;		/* rendered bucket.bt.in, without its last '\n' */
	char *bucket_nested;	/* the same one tab deeper (inside an if) */
	/* The traced processes' test (gen_pid_filter): every probe's. */
	char pid_filter[GEN_PID_TEXT];	/* "/pid == N/", "/pid == A || pid == B/" or "" */
	char pid_test[GEN_PID_TEXT];	/* "pid == N && ", "(pid == A || pid == B) && " or "" */
	const char *delete_call;	/* "delete" or "$deleted = delete": ${delete}(@m[k]); */
	/* "(uint64)" before an integer field of a syscalls:sys_* tracepoint
	 * (typed as the kernel's format says), or "" for bpftrace 0.27+,
	 * where every such field is a uint64 and a cast draws a warning. */
	const char *u64_field;
	uint64_t slice_min_ns;	/* gen_options' */
	unsigned attach;	/* attach points added */
	bool shared_added[N_PROBE_KINDS];	/* gen_add_shared_maps done for the kind */
} gen_parts;

/* Template variables: at most 24 NAME=VALUE pairs (a NULL value is ""). */
typedef struct gen_vars {
	const char *names[24];
	const char *values[24];
	size_t n;
	bool overflow;		/* a pair more was set: gen_render refuses V */
} gen_vars;

void gen_vars_set(gen_vars *v, const char *name, const char *value);

/* Renders template NAME (templates/NAME) with V and appends it to OUT.
 * Returns 0, or -1 after a diagnostic. */
int gen_render(buf *out, const char *name, gen_vars *v);

/* Registers probe NAME's maps: PRINT are printed and cleared with every
 * window, CLEAR_ONLY cleared only, IN_FLIGHT (per-thread entries of calls
 * in progress, which the probes delete as calls end) cleared by END
 * alone.  NULL-terminated lists; any may be NULL.  NAME NULL: maps the
 * probes share (wire.h), @PREFIX, registered once (gen_add_shared_maps). */
void gen_add_maps(gen_parts *pt, const char *name, const char *const *print,
		  const char *const *clear_only, const char *const *in_flight);

/* Registers probe NAME's sampled maps slow to print (user stacks, whose
 * frames bpftrace names as it prints them: milliseconds each), printed
 * and cleared with every window after the other maps, once an interval's
 * hold has ended (templates/window.bt.in): their samples are not parts
 * of a whole, and a hold that long would leave calls out. */
void gen_add_late_maps(gen_parts *pt, const char *name, const char *const *print);

/* Registers KIND's shared maps (wire.h) unless a probe did before. */
void gen_add_shared_maps(gen_parts *pt, probe_kind kind);

/* Probe I's number in the "bpfspec:probes" line: the key that picks its
 * part of a shared map. */
static inline unsigned gen_probe_number(size_t i)
{
	return (unsigned)i + 1;
}

/* Whether bpftrace can take object path P in an attach point; when not,
 * reports it for probe PROBE and returns false. */
bool gen_plain_object(const char *probe, const char *p);

/* Appends TYPE:PATH:0xADDR for each of the N addresses, comma-separated,
 * one per line: every uprobe by address is written here. */
void gen_put_address_points(buf *b, const char *type, const char *path,
			    const uint64_t *addrs, size_t n);

/* Appends POINT (an attach point's text) to the ",\n"-separated attach
 * points in B unless it is among them (one file reached twice: a shared
 * library of several executables); *N counts the points in B. */
void gen_put_point_once(buf *b, const char *point, unsigned *n);

/* The uprobes (TYPE "uprobe" or "uretprobe") of latency probe RP by
 * address: RP's own and those of the same function in the executables
 * joined to its target (resolved_probe.same), each once.  Returns how
 * many, 0 after a diagnostic (a path bpftrace cannot take). */
unsigned gen_put_probe_points(buf *b, const char *type, const resolved_probe *rp);

/* The attach points of a probe on a probe point (count, events on a
 * point): the spec's point as written, or the target's executable for
 * OBJECT main (and each executable joined to it, resolved_probe.same).
 * Returns how many, 0 after a diagnostic. */
unsigned gen_point_attach(const resolved_probe *rp, buf *at);

/* How a probe on POINT reads the window's start (window_start.bt.in):
 * "kptr(@wstart)" in kernel probes (tracepoint, kprobe, kretprobe,
 * software), "@wstart" in the others. */
const char *gen_window_start_read(point_type point);

/* Appends S with anything outside printable ASCII replaced by '?'. */
void gen_put_comment(buf *b, const char *s);

/* " in OBJECT 0xADDR..." of a probe on a function, for the header. */
void gen_put_where(buf *b, const resolved_probe *rp);

/* Fills PT's pid_filter and pid_test for PIDS[0..N) (N 0:
 * every process; all empty).  Returns 0, or -1 after a diagnostic when N
 * is above GEN_MAX_PIDS or a pid is not positive. */
int gen_pid_filter(gen_parts *pt, const pid_t *pids, size_t n);

/* Fills PT's pid_filter and pid_test with the test of a set that changes
 * while the program runs (gen_options.pids_addr): "@pids[(uint64)pid]",
 * and puts PIDS[0..N) into @pids in BEGIN (PT's types; END clears it).
 * Returns 0, or -1 after a diagnostic as gen_pid_filter. */
int gen_pid_map_filter(gen_parts *pt, const pid_t *pids, size_t n);

/* "/pid == N && (args->id == A || ...)/" for the probe's syscalls into
 * PRED ("" when there is nothing to test), "(args->id == A || ...) && "
 * into EXIT_TEST (the same syscalls as their exit tracepoint gives them;
 * "" for every syscall), and gen_put_syscalls into WHAT. */
void gen_syscall_filter(const gen_parts *pt, const spec_probe *sp, buf *pred, buf *exit_test,
			buf *what);

/* The probe's syscalls for people: "every syscall" or "openat, read". */
void gen_put_syscalls(buf *b, const spec_probe *sp);

/* With slices on (gen_options' slice_min_ns: -o trace), the statements
 * that print a record "bpfspec:ev NAME START TID NS" of a call (or span)
 * of probe NAME that began at START (a variable) on thread TID (tid, or a
 * variable) and took $ns, when it took long enough: at most
 * GEN_SLICE_LIMIT a window, the rest counted in @evdrop_NAME; indented by
 * INDENT tabs.  Nothing without slices. */
void gen_put_slice(buf *b, const gen_parts *pt, const char *name, const char *start,
		   const char *tid, int indent);

/* gen_put_slice's record with more after NS: MORE_FORMAT (a printf
 * format of ours that begins with a space) of the expressions MORE
 * (comma-separated), which report_fill_slices keeps as the event's
 * label.  Both NULL: gen_put_slice's. */
void gen_put_slice_with(buf *b, const gen_parts *pt, const char *name, const char *start,
			const char *tid, const char *more_format, const char *more, int indent);

/* With slices on, probe NAME's record counter and its count of the
 * records over the limit (gen_put_slice's). */
void gen_add_slice_maps(gen_parts *pt, const char *name);

/* Drops the last character of owned string S (a trailing '\n'). */
char *gen_chop(char *s);

/* Every feature's statements for probe I's entry (ENTRY) or return
 * (model/feature.h), one per line: owned text without a final '\n', ""
 * when none, NULL out of memory. */
char *gen_feature_hooks(const gen_parts *pt, const resolved *r, size_t i, bool entry);

/* Every feature's statement for an entry-only libuv phase's call of a
 * nested loop (model/feature.h): owned, "" when none, NULL out of memory. */
char *gen_feature_nested_loop_entry(const resolved *r);

#endif
