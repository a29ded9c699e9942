/* generator_maps_rule — a rule every generated program keeps: a map the probes
 * delete keys from is never printed or cleared while they run.
 *
 * bpftrace 0.17 prints a map by walking its keys and looking each up,
 * and clears one by listing its keys and then deleting each: a key that
 * a probe deletes in between makes it abort ("Could not print map",
 * "Could not clear map"), and the run is lost.  Such maps are cleared by
 * END alone, which runs once every probe is detached; maps that must be
 * printed at every window have their entries zeroed, not deleted.  The
 * one exception is a thread's exit (tracepoint:sched:sched_process_exit),
 * which deletes that thread's entries so that maps keyed by thread stay
 * the size of the live threads: a thread ends far less often than a
 * print takes (tens of microseconds).
 *
 * gen_program checks every program it writes against the rule, so a
 * template or a kind that breaks it fails every test that generates
 * that program, not one run in a thousand. */
#ifndef BPFSPEC_GENERATOR_MAPS_RULE_H
#define BPFSPEC_GENERATOR_MAPS_RULE_H

/* Checks program TEXT (as gen_program writes it: probe blocks open with
 * "{" and close with "}" alone on a line).  Returns 0, or -1 after a
 * diagnostic naming the map. */
int gen_check_maps_rule(const char *text);

#endif
