/* version — bpfspec's own version and the report schema it writes. */
#ifndef BPFSPEC_VERSION_H
#define BPFSPEC_VERSION_H

#define BPFSPEC_VERSION "0.1.0"
/* The report schema written (docs/report.md, "Schema history"), and the
 * oldest one `report` and `diff` still read: schema 1 named an events
 * record's duration latency_ns, where every syscall record now has
 * duration_ns. */
#define BPFSPEC_REPORT_SCHEMA 2
#define BPFSPEC_REPORT_SCHEMA_OLDEST 1

#endif
