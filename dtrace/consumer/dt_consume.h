/* SPDX-License-Identifier: MIT */
/*
 * dt_consume.h: the consumer: reads the output ring buffer, formats records
 * as DTrace does, reports faults and drops, and prints aggregations.
 */
#ifndef DT_CONSUME_H
#define DT_CONSUME_H

#include <stdbool.h>
#include "dt_impl.h"
#include "dt_progdesc.h"

/* Open the ring buffer of the "output" map. */
int dt_consume_init(dtrace_hdl_t *dtp);
void dt_consume_fini(dtrace_hdl_t *dtp);
/* Wait up to timeout_ms for records and format all that are there.
 * Returns 0, or -1 after dt_set_error() on a fatal error. */
int dt_consume_poll(dtrace_hdl_t *dtp, int timeout_ms);
/* True once an exit() record was consumed (status in dtp->exitstatus). */
bool dt_consume_done(dtrace_hdl_t *dtp);
/* Report drops counted since the last call ("dtrace: N drops on CPU C"). */
void dt_consume_report_drops(dtrace_hdl_t *dtp);
/* The dynamic loader of pid mapped or unmapped libraries (the exec
 * watch's DTRACE_NOTICE_MAPS): the modules of a process whose addresses
 * are symbolized are read again at once. */
void dt_consume_maps_changed(dtrace_hdl_t *dtp, pid_t pid);
/* At the end of tracing: print the aggregations the program did not
 * print itself, in DTrace's layout. */
int dt_consume_final(dtrace_hdl_t *dtp);
/* The session's output (made at the first use; output/dt_output.h). */
struct dt_out *dt_consume_out(dtrace_hdl_t *dtp);

/* dt_decode.c: printf() of records, decoded */
/* Format with the record data of nrecs records. */
int dt_printf_format(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		     const dt_recdesc_t *recs, int nrecs, const void *data);

#endif /* DT_CONSUME_H */
