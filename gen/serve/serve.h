/* serve — `bpfspec serve`: specs traced continuously on every process a
 * target selects, as cumulative Prometheus metrics over HTTP.
 *
 * How it runs (docs/serve.md):
 *   - every interval, /proc is scanned for each --target (discover.h);
 *     a target's processes are grouped by the executable they run (the
 *     file's device and inode), since one program's uprobes are placed
 *     by one file's addresses;
 *   - per spec, target and executable there is one slot: one supervised
 *     child, `bpfspec run SPEC -p PID... -d 0 -i INTERVAL -o json` (this
 *     binary, executed without a shell), whose bpftrace traces all of the
 *     group's processes; its stdout gives one report per interval, whose
 *     deltas are added to the store (promstore.h);
 *   - a group whose processes changed gets its child restarted (SIGTERM:
 *     the child prints the partial interval first, so nothing is lost); a
 *     child that fails is restarted with a backoff (1 s, doubling, at most
 *     60 s) while bpfspec_up is 0 and the totals stay;
 *   - the HTTP side (serve_http.h) renders the store on each scrape, in
 *     its own thread, under the serve lock.
 * SIGHUP re-reads the specs (kept as they were when one fails) and
 * restarts every child; SIGTERM and SIGINT stop the children, add their
 * last reports and exit 0.
 *
 * Layering: the top of serve, beside cmd/'s commands (gen/LAYERS); uses discover,
 * promstore, serve_http, spec_source and runner (bpftrace's version). */
#ifndef BPFSPEC_SERVE_H
#define BPFSPEC_SERVE_H

/* `bpfspec serve ARGS` (ARGV[0] is "serve").  Returns the exit status:
 * 0 after SIGTERM or SIGINT, EXIT_USAGE for bad arguments or a listen
 * address that cannot be used, EXIT_SPEC for a spec that does not load,
 * EXIT_TRACER when bpftrace cannot be run. */
int serve_main(int argc, char **argv);

#endif
