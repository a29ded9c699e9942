/* version — bpfspec's own version and the report schema it writes. */
#ifndef BPFSPEC_VERSION_H
#define BPFSPEC_VERSION_H

#define BPFSPEC_VERSION "0.1.0"
#define BPFSPEC_REPORT_SCHEMA 1

#endif
