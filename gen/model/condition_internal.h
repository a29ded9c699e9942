/* condition_internal — what condition.c (the parser) and condition_eval.c (the
 * evaluation on reports) share: the parsed condition.  Not for other
 * modules: they see condition.h's opaque check. */
#ifndef BPFSPEC_CONDITION_INTERNAL_H
#define BPFSPEC_CONDITION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/condition.h"

typedef enum {
	ST_COUNT, ST_SUM, ST_MIN, ST_MAX, ST_MEAN, ST_P50, ST_P90, ST_P99, ST_ERRORS, ST_LOST,
	N_STATS,
} condition_stat;

typedef enum { OP_GT, OP_GE, OP_LT, OP_LE, OP_EQ, OP_NE } condition_op;

extern const char *const check_op_names[];	/* ">", ">=", ... by condition_op */
/* The operator that holds exactly when OP does not: WHY shows it. */
extern const condition_op check_op_negated[];

struct condition {
	char *text;		/* as written */
	size_t path_len;	/* text[0, path_len) is the path: "poll.p99" */
	char *probe;
	char *syscall;		/* NULL: the probe as a whole */
	char *route;		/* http probes: "[ROUTE]" or "[METHOD ROUTE]"
				 * after the probe, without the brackets;
				 * NULL: none */
	condition_stat stat;
	char *errno_name;	/* errors.ENAME: "ENAME"; else NULL */
	condition_op op;
	bool relative;
	double pct;		/* relative: the signed change in percent */
	uint64_t value;		/* absolute: nanoseconds (durations) or a count */
	size_t value_off, value_len;	/* the value as written */
};

/* Durations are everything but count, errors and lost. */
bool condition_stat_is_duration(condition_stat s);

#endif
