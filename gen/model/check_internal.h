/* check_internal — what check.c (the parser) and check_eval.c (the
 * evaluation on reports) share: the parsed condition.  Not for other
 * modules: they see check.h's opaque check. */
#ifndef BPFSPEC_CHECK_INTERNAL_H
#define BPFSPEC_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/check.h"

typedef enum {
	ST_COUNT, ST_SUM, ST_MIN, ST_MAX, ST_MEAN, ST_P50, ST_P90, ST_P99, ST_ERRORS, ST_LOST,
	N_STATS,
} check_stat;

typedef enum { OP_GT, OP_GE, OP_LT, OP_LE, OP_EQ, OP_NE } check_op;

extern const char *const check_op_names[];	/* ">", ">=", ... by check_op */
/* The operator that holds exactly when OP does not: WHY shows it. */
extern const check_op check_op_negated[];

struct check {
	char *text;		/* as written */
	size_t path_len;	/* text[0, path_len) is the path: "poll.p99" */
	char *probe;
	char *syscall;		/* NULL: the probe as a whole */
	check_stat stat;
	char *errno_name;	/* errors.ENAME: "ENAME"; else NULL */
	check_op op;
	bool relative;
	double pct;		/* relative: the signed change in percent */
	uint64_t value;		/* absolute: nanoseconds (durations) or a count */
	size_t value_off, value_len;	/* the value as written */
};

/* Durations are everything but count, errors and lost. */
bool check_stat_is_duration(check_stat s);

#endif
