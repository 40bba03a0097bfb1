/* SPDX-License-Identifier: MIT */
/*
 * dt_consume.h: the consumer: reads the output ring buffer, formats records
 * as DTrace does, reports faults and drops, and prints aggregations.
 */
#ifndef DT_CONSUME_H
#define DT_CONSUME_H

#include <stdbool.h>
#include "dt_impl.h"
#include "dt_cg.h"

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

/* dt_printf.c */
/* Check a printf-like format against the argument types at compile time.
 * Returns 0 or a dt_errtag_t with msg filled (DTrace's wording, without
 * the leading "printf( ) ": the caller prefixes the function's name).
 * %@ conversions (printa) take no argument. */
/* The type of stack() and ustack() keys, as printa()'s formats see it. */
extern dt_type_t dt_printf_stack_type;
int dt_printf_check(const char *fmt, int nargs, dt_type_t *const *types,
		    char *msg, size_t msglen);
/* Which arguments (bit i: the i-th after the format) the %a and %A
 * conversions of a checked format print: they are recorded with the pid. */
uint64_t dt_printf_addr_args(const char *fmt);
/* Format with the record data of nrecs records. */
int dt_printf_format(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		     const dt_recdesc_t *recs, int nrecs, const void *data);

#endif /* DT_CONSUME_H */
